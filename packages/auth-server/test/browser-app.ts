// An app's page for the Chromium tests: the client library bundled for browsers as an app would
// (an IIFE with the global `PorticoAuth`, no Node polyfills), the test's own script, and the app's
// settings in a JSON script `#cfg`. `/popup-done` is a page without the library for popups to land on.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';

export type BrowserApp = { server: Server; url: string; close(): Promise<void> };

export async function bundleAuthClient(): Promise<string> {
  const out = await build({
    entryPoints: [new URL('../../auth/src/index.ts', import.meta.url).pathname],
    bundle: true,
    format: 'iife',
    globalName: 'PorticoAuth',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

/** Serves the page; `settings` is read at each load (a test may restart the auth service). */
export async function startBrowserApp(appJs: string, settings: () => object): Promise<BrowserApp> {
  const bundle = await bundleAuthClient();
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/bundle.js' || path === '/app.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      return res.end(path === '/bundle.js' ? bundle : appJs);
    }
    if (path === '/popup-done') return res.writeHead(200).end('<!doctype html><title>done</title>');
    if (path !== '/') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><title>app</title><script type="application/json" id="cfg">${JSON.stringify(settings())}</script>` +
        '<script src="/bundle.js"></script><script src="/app.js"></script>',
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
