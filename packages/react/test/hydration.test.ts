import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { AuthInitParams } from '@portico/auth';
import { launchChromium } from '@portico/testkit';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { CLIENT_ID, startTestAuthService, type TestAuthService } from './auth-service.ts';
import { loadServerReact, REACT_LINES, type ReactLine, reactAlias, type ServerReact } from './react-lines.ts';

// Server rendering then hydration in Chromium, as a server-rendered app does it: the page's HTML
// is react-dom/server's output (status 'loading'), the browser hydrates it with the same tree, and
// the hooks then follow the real auth service: login, session list, reload (restored), logout.
// Once per React line, with that line on both sides (react-lines.ts).
for (const line of REACT_LINES) hydratedPage(line);

function hydratedPage(line: ReactLine) {
  describe(`server-rendered page hydrated in Chromium (React ${line})`, { timeout: 120_000 }, () => {
    let serverReact: ServerReact;
    let service: TestAuthService;
    let server: Server;
    let url: string;
    let browser: Browser;
    let page: Page;
    const consoleErrors: string[] = [];

    const render = (init: AuthInitParams) =>
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>hydration</title><link rel="icon" href="data:,"></head><body><div id="root">${serverReact.renderToString(
        serverReact.createElement(serverReact.App, { init }),
      )}</div><script>window.__INIT__ = ${JSON.stringify(init)}</script><script type="module" src="/app.js"></script></body></html>`;

    before(async () => {
      serverReact = await loadServerReact(line);
      service = await startTestAuthService();
      const init: AuthInitParams = {
        clientId: CLIENT_ID,
        network: 'sapphire_devnet',
        sdkUrl: service.server.sdkUrl,
        // Never called: eth_accounts is answered by the provider itself.
        chainConfig: { chainNamespace: 'eip155', chainId: '0x7a69', rpcTarget: 'http://127.0.0.1:9' },
      };
      const bundle = await build({
        entryPoints: [new URL('./fixture/browser.ts', import.meta.url).pathname],
        bundle: true,
        write: false,
        format: 'esm',
        platform: 'browser',
        conditions: ['@portico/source'],
        alias: reactAlias(line),
        // React's development build: it reports hydration mismatches on the console.
        define: { 'process.env.NODE_ENV': '"development"' },
        logLevel: 'silent',
      });
      const script = bundle.outputFiles[0].text;
      server = createServer(async (request, response) => {
        if (request.url === '/app.js') {
          response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
        } else if (request.url === '/token') {
          response.writeHead(200, { 'content-type': 'text/plain' }).end(await service.token('hydra'));
        } else if (request.url === '/') {
          response.writeHead(200, { 'content-type': 'text/html' }).end(render(init));
        } else {
          response.writeHead(404).end();
        }
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      browser = await launchChromium();
      page = await (await browser.newContext()).newPage();
      page.on('pageerror', (error) => consoleErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') consoleErrors.push(message.text());
      });
    });
    after(async () => {
      await browser?.close();
      server?.close();
      await service?.close();
    });

    const shows = async (id: string, pattern: RegExp) => {
      try {
        const handle = await page.waitForFunction(
          ([id, source]) => {
            const text = document.getElementById(id)?.textContent ?? '';
            return new RegExp(source).test(text) && text;
          },
          [id, pattern.source] as const,
          { timeout: 30_000 },
        );
        return (await handle.jsonValue()) as string;
      } catch (error) {
        const shown = await page.textContent(`#${id}`).catch(() => null);
        throw new Error(
          `#${id} never matched ${pattern}: "${shown}"; errors: ${JSON.stringify(consoleErrors)}`,
          {
            cause: error,
          },
        );
      }
    };
    const hydrationReports = () => page.evaluate(() => window.__RECOVERABLE__);

    it(`renders with React ${line} on the server and in the browser`, async () => {
      assert.match(serverReact.reactVersion, new RegExp(`^${line}\\.`), 'react on the server');
      assert.match(serverReact.reactDomVersion, new RegExp(`^${line}\\.`), 'react-dom/server');
      await page.goto(url);
      const browserVersions = await page.evaluate(() => window.__REACT_VERSIONS__);
      assert.match(browserVersions.react, new RegExp(`^${line}\\.`), 'react in the browser');
      assert.match(browserVersions.reactDom, new RegExp(`^${line}\\.`), 'react-dom in the browser');
    });

    it("the server's HTML is the 'loading' state; hydrated, the page reads the instance: signed out", async () => {
      const html = await (await fetch(url)).text();
      assert.match(html, /<output id="status">loading<\/output>/);
      assert.match(html, /<button id="login" type="button" disabled="">/, 'login waits for the instance');
      await page.goto(url);
      await shows('status', /^signedOut$/);
      assert.equal(await page.isEnabled('#login'), true);
      assert.deepEqual(await hydrationReports(), []);
    });

    it('useLogin signs in; useProvider gives the address, useSessions lists the session', async () => {
      await page.click('#login');
      await shows('status', /^signedIn$/);
      assert.equal(await shows('user', /./), 'hydra');
      await shows('address', /^0x[0-9a-fA-F]{40}$/);
      await shows('sessions', /^1$/);
    });

    it('a reload renders loading on the server again and restores the session after hydration', async () => {
      const address = await page.textContent('#address');
      await page.reload();
      await shows('status', /^signedIn$/);
      assert.equal(await shows('address', /^0x/), address);
      await shows('sessions', /^1$/);
      assert.deepEqual(await hydrationReports(), [], 'the stored session did not make hydration differ');
    });

    it('useAuth().logout signs out: no user, no provider, no sessions; nothing logged an error', async () => {
      await page.click('#logout');
      await shows('status', /^signedOut$/);
      await shows('address', /^none$/);
      assert.equal(await page.textContent('#user'), 'none');
      await shows('sessions', /^none$/);
      assert.deepEqual(consoleErrors, []);
    });
  });
}
