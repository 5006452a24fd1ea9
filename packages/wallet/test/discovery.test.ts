import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from '@portico/testkit';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { startWallet, type Wallet } from '../src/index.ts';

// A dapp page finds the reference wallet's browser bridge with real discovery clients (mipd for
// EIP-6963, @wallet-standard/app for Solana, a CAIP-294 prompt) and connects EVM, then Solana, then
// EVM again through what it found, both connections alive throughout.
const EVM = 'eip155:31337';
const SOLANA = 'solana:PorticoLocal11111111111111111111';
const ICON =
  'data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxIDEiLz4=';

/** The bridge as a wallet's in-page script runs it (an extension's content script would too). */
const BRIDGE_ENTRY = `
import { announceWalletBridge, createWalletBridge, createWebSocketTransport } from '@portico/multichain';
const url = new URLSearchParams(location.search).get('wallet');
const bridge = createWalletBridge({
  transport: createWebSocketTransport({ url }),
  chains: ${JSON.stringify([EVM, SOLANA])},
  name: 'Portico',
  icon: ${JSON.stringify(ICON)},
});
announceWalletBridge(bridge, { name: 'Portico', icon: ${JSON.stringify(ICON)}, rdns: 'dev.portico.wallet' });
`;

/** The dapp: discovery clients only, loaded before the wallet's script. */
const DAPP_ENTRY = `
import { createStore } from 'mipd';
import { getWallets } from '@wallet-standard/app';
const store = createStore();
const wallets = getWallets();
const caip294 = [];
window.addEventListener('caip294:wallet_announce', (event) => caip294.push(event.detail.params));
window.dapp = {
  eip6963: () => store.getProviders().map(({ info }) => info),
  solanaWallets: () => wallets.get().map((w) => ({ name: w.name, icon: w.icon, chains: w.chains, features: Object.keys(w.features) })),
  caip294: () => { window.dispatchEvent(new Event('caip294:wallet_prompt')); return caip294.map(({ uuid, name, rdns, target }) => ({ uuid, name, rdns, target: target.type })); },
  evm: () => store.findProvider({ rdns: 'dev.portico.wallet' }).provider,
  // Connect EVM, then Solana, then EVM again through what was found; what each side holds after each step.
  async connectInTurn() {
    const evm = store.findProvider({ rdns: 'dev.portico.wallet' }).provider;
    const solana = wallets.get().find((w) => w.name === 'Portico');
    const state = async () => ({
      evm: await evm.request({ method: 'eth_accounts' }),
      solana: solana.accounts.map((account) => account.address),
    });
    const seen = [];
    await evm.request({ method: 'eth_requestAccounts' });
    seen.push(await state());
    await solana.features['standard:connect'].connect();
    seen.push(await state());
    await evm.request({ method: 'wallet_requestPermissions', params: [{ eth_accounts: {} }] });
    seen.push(await state());
    return seen;
  },
};
`;

async function bundle(contents: string): Promise<string> {
  const result = await build({
    stdin: { contents, resolveDir: import.meta.dirname, loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    conditions: ['@portico/source', 'browser'],
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

describe('discovery in Chromium: EIP-6963, the Wallet Standard and CAIP-294 find the bridge', () => {
  let wallet: Wallet;
  let site: Server;
  let browser: Browser;
  let page: Page;

  before(async () => {
    wallet = await startWallet({
      // Nothing here reads a chain: connections are answered by the wallet itself.
      chains: [
        { chainId: EVM, rpcUrl: 'http://127.0.0.1:9' },
        { chainId: SOLANA, rpcUrl: 'http://127.0.0.1:9' },
      ],
      accountCount: 2,
      autoApprove: true,
    });
    const files = new Map([
      ['/dapp.js', await bundle(DAPP_ENTRY)],
      ['/bridge.js', await bundle(BRIDGE_ENTRY)],
      [
        '/',
        '<!doctype html><html><body><script src="/dapp.js"></script><script src="/bridge.js"></script></body></html>',
      ],
    ]);
    site = createServer((req, res) => {
      const body = files.get(new URL(req.url ?? '/', 'http://x').pathname);
      if (body === undefined) return res.writeHead(404).end();
      res.writeHead(200, { 'content-type': req.url?.endsWith('.js') ? 'text/javascript' : 'text/html' });
      res.end(body);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    browser = await launchChromium();
    page = await browser.newPage();
    const { port } = site.address() as AddressInfo;
    await page.goto(`http://127.0.0.1:${port}/?wallet=${encodeURIComponent(wallet.wsUrl)}`);
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await wallet?.close();
  });

  test('mipd, getWallets() and a CAIP-294 prompt each find the wallet with its name, icon and rdns', async () => {
    const [info] = await page.evaluate(() =>
      (window as never as { dapp: { eip6963: () => unknown[] } }).dapp.eip6963(),
    );
    const { uuid, ...rest } = info as { uuid: string };
    assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(rest, { name: 'Portico', icon: ICON, rdns: 'dev.portico.wallet' });

    const solana = await page.evaluate(() =>
      (window as never as { dapp: { solanaWallets: () => unknown[] } }).dapp.solanaWallets(),
    );
    assert.deepEqual(solana, [
      {
        name: 'Portico',
        icon: ICON,
        chains: [SOLANA],
        features: [
          'standard:connect',
          'standard:disconnect',
          'standard:events',
          'solana:signIn',
          'solana:signMessage',
          'solana:signTransaction',
          'solana:signAndSendTransaction',
        ],
      },
    ]);

    const announced = (await page.evaluate(() =>
      (window as never as { dapp: { caip294: () => unknown[] } }).dapp.caip294(),
    )) as { uuid: string }[];
    // Announced when the wallet's script loaded, and again on the prompt.
    assert.deepEqual(announced, [
      { uuid, name: 'Portico', rdns: 'dev.portico.wallet', target: 'portico_inpage' },
      { uuid, name: 'Portico', rdns: 'dev.portico.wallet', target: 'portico_inpage' },
    ]);
  });

  test('through what it found, the dapp connects EVM, then Solana, then EVM again, both alive throughout', async () => {
    const [evm0, evm1] = wallet.accounts.eip155;
    const solanaAccounts = wallet.accounts.solana;
    const steps = await page.evaluate(() =>
      (window as never as { dapp: { connectInTurn: () => Promise<unknown> } }).dapp.connectInTurn(),
    );
    const both = { evm: [evm0, evm1], solana: solanaAccounts };
    assert.deepEqual(steps, [{ evm: [evm0, evm1], solana: [] }, both, both]);
  });
});
