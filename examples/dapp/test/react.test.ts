// The React variant of the example (react.html: @portico/react's hooks, wagmi through the
// porticoAuth connector), built with Vite from the packages' dist/ and driven in Chromium with
// real clicks against a real `portico dev`: popup login → the address from useProvider and wagmi
// connected to it → personal_sign through wagmi, verified by viem → the session list (useSessions),
// a second device's session ended from here → a reload restores the session → logout.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchChromium, tempDir } from '@portico/testkit';
import type { Browser, Page } from 'playwright-core';
import { type Hex, verifyMessage } from 'viem';
import { type Running, startDev } from '../../../packages/cli/test/dev-process.ts';
import { buildExample, devLogin, serveStatic, textOf as textOfPage } from './example-app.ts';

const MESSAGE = 'Hello from the Portico example dapp';

describe('the React example in Chromium against portico dev', { timeout: 300_000 }, () => {
  const dir = tempDir();
  const email = `react-${Date.now()}@example.com`;
  let dev: Running;
  let server: Server;
  let pageUrl: string;
  let browser: Browser;
  let app: Page;
  let userAddress: Hex;
  /** Errors the pages threw or logged (React reports a failed render there). */
  const pageErrors: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      const { url } = message.location();
      // A device whose session was ended reads it once more on load: the service's 404 there is the answer.
      if (message.type() !== 'error' || url.endsWith('/api/session/get')) return;
      pageErrors.push(`${message.text()} (${url})`);
    });
    return page;
  };

  before(async () => {
    dev = await startDev(dir.path, ['--block-time', '0']);
    const configPath = join(dir.path, 'portico-dev.json');
    await writeFile(configPath, JSON.stringify(dev.config));
    const outDir = join(dir.path, 'app');
    await buildExample(outDir, configPath);
    let url: string;
    ({ server, url } = await serveStatic(outDir));
    pageUrl = `${url}/react.html`;
    browser = await launchChromium();
    app = watch(await (await browser.newContext()).newPage());
    await app.goto(pageUrl);
  });
  after(async () => {
    await browser?.close();
    server?.close();
    dev?.child.kill('SIGKILL');
    dir.cleanup();
  });

  const textOf = (id: string, pattern: RegExp, page = app) =>
    textOfPage(page, id, pattern, '[role="alert"]').catch((error: Error) => {
      throw new Error(`${error.message}; page errors: ${JSON.stringify(pageErrors)}`, { cause: error });
    });
  const sessionItems = (page = app) => page.getByRole('list', { name: 'Sessions' }).getByRole('listitem');

  test('signed out at first; Log in through the popup shows the address (useProvider) and wagmi takes it up', async () => {
    await textOf('auth-status', /^signedOut$/);
    await devLogin(app, () => app.getByRole('button', { name: 'Log in' }).click(), email);
    await textOf('auth-status', /^signedIn$/);
    userAddress = (await textOf('evm-address', /^0x[0-9a-fA-F]{40}$/)) as Hex;
    assert.equal(
      await textOf('wagmi-account', /^0x/),
      userAddress,
      'the connector connected wagmi on the login',
    );
  });

  test('Sign message goes through wagmi to auth.provider; viem verifies it against the user’s address', async () => {
    await app.getByRole('button', { name: 'Sign message' }).click();
    const signature = (await textOf('signature', /^0x[0-9a-f]{130}$/)) as Hex;
    assert.ok(await verifyMessage({ address: userAddress, message: MESSAGE, signature }));
  });

  test('useSessions lists this device’s session; a second device’s session shows up and is ended from here', async () => {
    await sessionItems().filter({ hasText: '(this device)' }).waitFor();
    assert.equal(await sessionItems().count(), 1);

    const other = watch(await (await browser.newContext()).newPage());
    await other.goto(pageUrl);
    await textOf('auth-status', /^signedOut$/, other);
    await devLogin(other, () => other.getByRole('button', { name: 'Log in' }).click(), email);
    assert.equal(await textOf('evm-address', /^0x/, other), userAddress, 'the same user on the other device');

    await app.getByRole('button', { name: 'Refresh' }).click();
    await sessionItems().nth(1).waitFor();
    assert.equal(await sessionItems().count(), 2);
    await sessionItems().filter({ hasNotText: '(this device)' }).getByRole('button', { name: 'End' }).click();
    await app.waitForFunction(
      () => document.querySelectorAll('[aria-label="Sessions"] li').length === 1,
      undefined,
      { timeout: 60_000 },
    );
    await other.reload();
    await textOf('auth-status', /^signedOut$/, other);
    await other.close();
  });

  test('a reload restores the session: the same address, wagmi reconnected', async () => {
    await app.reload();
    await textOf('auth-status', /^signedIn$/);
    assert.equal(await textOf('evm-address', /^0x/), userAddress);
    assert.equal(await textOf('wagmi-account', /^0x/), userAddress);
  });

  test('Log out signs out: the session list and the address are gone', async () => {
    await app.getByRole('button', { name: 'Log out' }).click();
    await textOf('auth-status', /^signedOut$/);
    assert.equal(await app.locator('#evm-address').count(), 0);
    assert.equal(await sessionItems().count(), 0);
    await app.reload();
    await textOf('auth-status', /^signedOut$/);
    assert.deepEqual(pageErrors, [], 'no page threw or logged an error');
  });
});
