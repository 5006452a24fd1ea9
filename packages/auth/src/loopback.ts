// Desktop apps (Node, Electron main processes, CLIs): receive the login result on a loopback
// address (RFC 8252 §7.3). The result travels in the URL fragment, which a browser never sends to a
// server, so the page served here hands the fragment back to the listener with one POST.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackReceiver {
  /** `http://127.0.0.1:<port>/<random path>`: pass it as `redirectUrl` (register `http://127.0.0.1/` on the service). */
  redirectUrl: string;
  /** Resolves with the next URL the browser arrived at (what `openUrl` must resolve with). */
  next(): Promise<string>;
  close(): Promise<void>;
}

const PAGE = `<!doctype html><meta charset="utf-8"><title>Signed in</title>
<p id="m">Finishing sign-in…</p>
<script>
fetch(location.pathname, { method: 'POST', body: location.href })
  .then(() => { document.getElementById('m').textContent = 'You can close this window.'; });
</script>`;

async function body(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) {
    text += chunk;
    if (text.length > 16_384) throw new Error('too large');
  }
  return text;
}

/**
 * Listens on 127.0.0.1 (any free port) under an unguessable path, so no other local process can
 * hand the app a login result of its own. Use it with `Auth.create(..., { openUrl })`:
 *
 * ```ts
 * const receiver = await startLoopbackReceiver();
 * const auth = await Auth.create({ ...params, redirectUrl: receiver.redirectUrl }, {
 *   openUrl: async (url) => { openInSystemBrowser(url); return receiver.next(); },
 * });
 * ```
 */
export async function startLoopbackReceiver(): Promise<LoopbackReceiver> {
  const path = `/${randomBytes(16).toString('hex')}`;
  let waiting: Array<(url: string) => void> = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== path) {
      res.writeHead(404).end();
      return;
    }
    if (req.method === 'GET') {
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
      res.end(PAGE);
      return;
    }
    body(req).then(
      (href) => {
        const arrived = URL.canParse(href) ? new URL(href) : undefined;
        if (!arrived || arrived.pathname !== path || arrived.host !== req.headers.host) {
          res.writeHead(400).end();
          return;
        }
        res.writeHead(204).end();
        const resolvers = waiting;
        waiting = [];
        for (const resolve of resolvers) resolve(href);
      },
      () => res.writeHead(413).end(),
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}${path}`,
    next: () => new Promise<string>((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
