import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { launchChromium } from '@portico/testkit';
import type { Browser, Page } from 'playwright-core';
import { startWallet, type Wallet } from '../src/index.ts';
import { stopAnvil } from './helpers.ts';

const SCOPE = 'eip155:31337';
const ACCOUNT_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** A dapp page with no library: it opens the wallet's WebSocket and asks for a session. */
const DAPP_PAGE = `<!doctype html>
<html><body>
<button id="connect">Connect wallet</button>
<pre id="result"></pre>
<script>
  const wallet = new URLSearchParams(location.search).get('wallet');
  let id = 0;
  document.getElementById('connect').onclick = () => {
    document.getElementById('result').textContent = '';
    const ws = new WebSocket(wallet);
    const requestId = ++id;
    ws.onopen = () => ws.send(JSON.stringify({
      jsonrpc: '2.0', id: requestId, method: 'wallet_createSession',
      params: { optionalScopes: { '${SCOPE}': { methods: ['personal_sign'], notifications: [] } } },
    }));
    ws.onmessage = (event) => {
      const message = JSON.parse(event.data);
      if (message.id === requestId) document.getElementById('result').textContent = JSON.stringify(message);
    };
  };
</script>
</body></html>`;

describe('approval page in Chromium', () => {
  let anvil: Anvil;
  let wallet: Wallet;
  let dappServer: Server;
  let dappOrigin: string;
  let browser: Browser;
  let dappPage: Page;
  let walletPage: Page;

  before(async () => {
    anvil = await startAnvil();
    wallet = await startWallet({ chains: [{ chainId: SCOPE, rpcUrl: anvil.url }], accountCount: 3 });
    dappServer = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(DAPP_PAGE),
    );
    await new Promise<void>((resolve) => dappServer.listen(0, '127.0.0.1', resolve));
    dappOrigin = `http://127.0.0.1:${(dappServer.address() as AddressInfo).port}`;
    browser = await launchChromium();
    dappPage = await browser.newPage();
    walletPage = await browser.newPage();
    await dappPage.goto(`${dappOrigin}/?wallet=${encodeURIComponent(wallet.wsUrl)}`);
    await walletPage.goto(wallet.approvalUrl);
  });
  after(async () => {
    await browser?.close();
    await wallet?.close();
    await stopAnvil(anvil);
    await new Promise((resolve) => dappServer?.close(resolve));
  });

  async function dappResult(): Promise<{
    result?: { sessionScopes: Record<string, { accounts: string[] }> };
    error?: { code: number };
  }> {
    await dappPage.waitForFunction(() => document.getElementById('result')?.textContent !== '');
    return JSON.parse((await dappPage.textContent('#result')) ?? '');
  }

  test('a person sees the origin and scopes, picks an account and approves; the dapp gets the session', async () => {
    await dappPage.click('#connect');
    const request = walletPage.locator(`section.request[data-origin="${dappOrigin}"]`);
    await request.waitFor();
    assert.equal(await request.locator('.origin').textContent(), dappOrigin);
    assert.equal(await request.locator(`input[name=scope][value="${SCOPE}"]`).isChecked(), true);
    for (const box of await request.locator('input[name=account]').all()) await box.uncheck();
    await request.locator(`input[name=account][value="${ACCOUNT_1}"]`).check();
    await request.locator('button.approve').click();

    const response = await dappResult();
    assert.deepEqual(response.result?.sessionScopes[SCOPE].accounts, [`${SCOPE}:${ACCOUNT_1}`]);
    await walletPage.locator(`.session[data-origin="${dappOrigin}"]`).waitFor();
    assert.deepEqual(Object.keys((await wallet.engine.getSession(dappOrigin))?.sessionScopes ?? {}), [SCOPE]);
  });

  test('a person rejects; the dapp gets 4001', async () => {
    await dappPage.click('#connect');
    const request = walletPage.locator(`section.request[data-origin="${dappOrigin}"]`);
    await request.waitFor();
    await request.locator('button.reject').click();
    const response = await dappResult();
    assert.equal(response.error?.code, 4001);
    await request.waitFor({ state: 'detached' });
  });
});
