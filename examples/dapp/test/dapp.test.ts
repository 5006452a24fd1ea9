// The example dapp, built with Vite from the packages' dist/ and served as static files, driven in
// Chromium with real clicks against a real `portico dev` (the CLI in its own process): login popup
// with the dev form → funded address and balances read through the gateway → 0.01 ETH sent with
// auth.provider → a Multichain API session with the reference wallet, personal_sign approved and
// rejected on the wallet's own page → live new-block events → every call charged to the example's
// own API key (admin usage API).
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { launchChromium, tempDir, usageByMethod } from '@portico/testkit';
import type { Browser, Page } from 'playwright-core';
import { createPublicClient, type Hex, http, parseEther, verifyMessage } from 'viem';
import { foundry } from 'viem/chains';
import { type Running, startDev } from '../../../packages/cli/test/dev-process.ts';
import { buildExample, devLogin, serveStatic, textOf as textOfPage } from './example-app.ts';

const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const MESSAGE = 'Hello from the Portico example dapp';

describe('the example dapp in Chromium against portico dev', { timeout: 300_000 }, () => {
  const dir = tempDir();
  let dev: Running;
  let keyId: string;
  let server: Server;
  let appUrl: string;
  let browser: Browser;
  let app: Page;
  let walletPage: Page;
  let userAddress: Hex;
  let walletAccount: Hex;

  before(async () => {
    dev = await startDev(dir.path, ['--block-time', '0']);
    // A key of the example's own, so its usage is told apart from the wallet's (on the dev key).
    const created = await fetch(`${dev.config.gatewayUrl}/admin/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev.config.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'example-dapp' }),
    });
    assert.equal(created.status, 201);
    const { id, key } = (await created.json()) as { id: string; key: string };
    keyId = id;
    const configPath = join(dir.path, 'portico-dev.json');
    await writeFile(configPath, JSON.stringify(dev.config));
    const outDir = join(dir.path, 'app');
    await buildExample(outDir, configPath, key);
    ({ server, url: appUrl } = await serveStatic(outDir));
    browser = await launchChromium();
    app = await (await browser.newContext()).newPage();
    await app.goto(appUrl);
  });
  after(async () => {
    await browser?.close();
    server?.close();
    dev?.child.kill('SIGKILL');
    dir.cleanup();
  });

  const textOf = (id: string, pattern: RegExp) => textOfPage(app, id, pattern, '#status');

  const chain = () => createPublicClient({ chain: foundry, transport: http(dev.config.evm.upstreamUrl) });

  test('Log in opens the auth service in a popup; the dev form logs in a new user, who is shown funded', async () => {
    await devLogin(app, () => app.getByRole('button', { name: 'Log in' }).click());
    userAddress = (await textOf('evm-address', /^0x[0-9a-fA-F]{40}$/)) as Hex;
    assert.match(await textOf('solana-address', /^[1-9A-HJ-NP-Za-km-z]{32,44}$/), /./);
    assert.equal(await textOf('eth-balance', /ETH$/), '10 ETH', 'the dev faucet funded the new user');
    assert.equal(await textOf('sol-balance', /SOL$/), '10 SOL');
    await app.getByRole('button', { name: 'Log out' }).waitFor();
  });

  test('Send 0.01 ETH signs with the user’s key through auth.provider; the receipt is shown and on chain', async () => {
    await app.getByRole('button', { name: 'Send 0.01 ETH' }).click();
    const shown = await textOf('receipt', /^success in block \d+: 0x[0-9a-f]{64}$/);
    const hash = shown.split(': ')[1] as Hex;
    const transaction = await chain().getTransaction({ hash });
    assert.equal(transaction.from.toLowerCase(), userAddress.toLowerCase());
    assert.equal(transaction.to?.toLowerCase(), RECIPIENT.toLowerCase());
    assert.equal(transaction.value, parseEther('0.01'));
    assert.match(
      await textOf('eth-balance', /^9\.98\d* ETH$/),
      /^9\.98/,
      'the balance shows the transfer and gas',
    );
  });

  test('Connect wallet pops the wallet’s page; the person approves the connection there', async () => {
    const popupOpened = app.waitForEvent('popup');
    await app.getByRole('button', { name: 'Connect wallet' }).click();
    walletPage = await popupOpened;
    const request = walletPage.getByRole('region', { name: `Connection request from ${appUrl}` });
    await request.getByRole('button', { name: 'Approve' }).click({ timeout: 60_000 });
    walletAccount = (await textOf('wallet-account', /^0x[0-9a-fA-F]{40}$/)) as Hex;
    assert.ok(dev.config.wallet.accounts.eip155?.includes(walletAccount), 'one of the wallet’s accounts');
  });

  test('personal_sign waits on the wallet page; Approve gives the dapp a signature viem verifies', async () => {
    await app.getByRole('button', { name: 'Sign message' }).click();
    const request = walletPage.getByRole('region', { name: `Signature request from ${appUrl}` });
    await request.getByText(MESSAGE).waitFor({ timeout: 60_000 });
    await request.getByRole('button', { name: 'Approve' }).click();
    const signature = (await textOf('signature', /^0x[0-9a-f]{130}$/)) as Hex;
    assert.ok(await verifyMessage({ address: walletAccount, message: MESSAGE, signature }));
  });

  test('Reject on the wallet page gives the dapp 4001 "User rejected the request."', async () => {
    await app.getByRole('button', { name: 'Sign message' }).click();
    const request = walletPage.getByRole('region', { name: `Signature request from ${appUrl}` });
    await request.getByRole('button', { name: 'Reject' }).click({ timeout: 60_000 });
    assert.match(await textOf('signature', /^Error 4001/), /User rejected the request\./);
  });

  test('new blocks arrive live as wallet_notify and are listed', async () => {
    const anvil = chain();
    await anvil.request({ method: 'evm_mine' as never });
    const mined = await anvil.getBlock();
    await app
      .getByRole('list', { name: 'New blocks' })
      .getByText(`Block ${mined.number} ${mined.hash}`)
      .waitFor({ timeout: 60_000 });
  });

  test('the app’s calls were charged to its own API key (admin usage API)', async () => {
    const usage = await usageByMethod(dev.config.gatewayUrl, dev.config.adminToken, keyId);
    const requests = (method: string) => usage.get(method)?.requests ?? 0;
    assert.equal(requests('eth_sendRawTransaction'), 1, 'the one transfer');
    for (const method of [
      'eth_getBalance',
      'getBalance',
      'eth_getTransactionCount',
      'eth_estimateGas',
      'eth_getTransactionReceipt',
    ]) {
      assert.ok(requests(method) >= 1, `${method} was charged to the example's key`);
    }
    assert.ok((usage.get('eth_sendRawTransaction')?.credits ?? 0) > 0);
    // Signing went to the wallet, which reads the chain on the dev key, not the example's.
    assert.equal(requests('personal_sign'), 0);
  });
});
