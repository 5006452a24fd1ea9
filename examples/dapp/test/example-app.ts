// What both Chromium tests of the example need: the app built with Vite from the packages' dist/
// against a running `portico dev`, served as static files the way any web host would, and a
// wait for a page's text.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, extname, join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';

const run = promisify(execFile);
const EXAMPLE_DIR = new URL('..', import.meta.url).pathname;
const ROOT = new URL('../../..', import.meta.url).pathname;
const VITE = join(dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin/vite.js');
const TYPES: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
};

/** Builds the packages (the example consumes their dist/, as an app would), then the example into `outDir`. */
export async function buildExample(outDir: string, configPath: string, apiKey?: string): Promise<void> {
  await run(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT });
  await run(process.execPath, [VITE, 'build', '--outDir', outDir, '--logLevel', 'warn'], {
    cwd: EXAMPLE_DIR,
    env: { ...process.env, PORTICO_CONFIG: configPath, ...(apiKey ? { PORTICO_API_KEY: apiKey } : {}) },
  });
}

/** Serves a folder of static files; resolves with the server and its base URL. */
export async function serveStatic(root: string): Promise<{ server: Server; url: string }> {
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    const file = join(root, path === '/' ? 'index.html' : path);
    try {
      const body = await readFile(file);
      response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * Waits until the element's text matches, and returns the text (the page updates as answers
 * come); on a timeout the error says what it showed and what `statusSelector` said.
 */
export async function textOf(
  page: Page,
  id: string,
  pattern: RegExp,
  statusSelector: string,
): Promise<string> {
  try {
    const handle = await page.waitForFunction(
      ([id, source]) => {
        const text = document.getElementById(id)?.textContent ?? '';
        return new RegExp(source).test(text) && text;
      },
      [id, pattern.source] as const,
      { timeout: 60_000 },
    );
    return (await handle.jsonValue()) as string;
  } catch (error) {
    const [shown, status] = await Promise.all([
      page.textContent(`#${id}`).catch(() => null),
      page.textContent(statusSelector).catch(() => null),
    ]);
    throw new Error(`#${id} never matched ${pattern}: it shows "${shown}", ${statusSelector} "${status}"`, {
      cause: error,
    });
  }
}

/** Logs in through the popup's dev form (any email works with `portico dev`; default a new one). */
export async function devLogin(
  page: Page,
  openLogin: () => Promise<void>,
  email = `example-${Date.now()}@example.com`,
): Promise<void> {
  const popupOpened = page.waitForEvent('popup');
  await openLogin();
  const popup = await popupOpened;
  await popup.click('button[data-provider="portico-dev"]');
  await popup.fill('#email', email);
  const closed = popup.waitForEvent('close', { timeout: 60_000 });
  await popup.click('#dev-submit');
  await closed; // the library took the result from the service's /done page and closed the popup
}
