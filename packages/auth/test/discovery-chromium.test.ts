import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type AuthServer, startAuthServer } from '@portico/auth-server';
import { launchChromium, tempDir } from '@portico/testkit';
import {
  getAddressEncoder,
  getPublicKeyFromAddress,
  type SignatureBytes,
  verifySignature,
} from '@solana/kit';
import { verifySignIn } from '@solana/wallet-standard-util';
import { build } from 'esbuild';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { type Hex, verifyMessage } from 'viem';

// A dapp page with real discovery clients (mipd for EIP-6963, @wallet-standard/app's getWallets for
// the Solana Wallet Standard) finds the app's auth.provider both ways, connects (which runs the app's
// login against the real auth service) and signs; the signatures are checked here, outside the page.
const CLIENT_ID = 'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ';
const ICON = 'data:image/svg+xml;base64,PHN2Zy8+';
const SOLANA = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1';

/** The app: two Auths (eip155 and solana) of one login, announced; loaded before the dapp's script. */
const APP_ENTRY = `
import { Auth, MemoryStorage, announceAuthProvider, announceAuthSolanaWallet } from '@portico/auth';
const cfg = JSON.parse(document.getElementById('cfg').textContent);
const create = (chainConfig) =>
  Auth.create({ clientId: cfg.clientId, network: 'sapphire_devnet', sdkUrl: cfg.sdkUrl, chainConfig }, { storage: new MemoryStorage() });
window.app = (async () => {
  const evm = await create({ chainNamespace: 'eip155', chainId: '0x7a69', rpcTarget: 'http://127.0.0.1:9', ticker: 'ETH' });
  const sol = await create({ chainNamespace: 'solana', chainId: ${JSON.stringify(SOLANA)}, rpcTarget: 'http://127.0.0.1:9' });
  // One user for both: the page's test hook hands out the app's ID tokens (one per login).
  const login = () =>
    Promise.all([evm, sol].map(async (auth) =>
      auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await window.idToken('ivy') } })));
  announceAuthProvider(evm, { name: 'Example app', icon: ${JSON.stringify(ICON)}, rdns: 'app.example' }, { connect: login });
  announceAuthSolanaWallet(sol, { name: 'Example app', icon: ${JSON.stringify(ICON)} }, { connect: login });
  return { evm, sol };
})();
`;

/** The dapp: discovery clients only. */
const DAPP_ENTRY = `
import { createStore } from 'mipd';
import { getWallets } from '@wallet-standard/app';
const store = createStore();
const wallets = getWallets();
const bytes = (u8) => Array.from(u8);
window.dapp = {
  eip6963: () => store.getProviders().map(({ info }) => info),
  solanaWallets: () => wallets.get().map((w) => ({ name: w.name, icon: w.icon, chains: w.chains, features: Object.keys(w.features) })),
  async evm() {
    const { provider } = store.findProvider({ rdns: 'app.example' });
    const [address] = await provider.request({ method: 'eth_requestAccounts' });
    const message = 'found by mipd';
    const hex = '0x' + Array.from(new TextEncoder().encode(message), (b) => b.toString(16).padStart(2, '0')).join('');
    const signature = await provider.request({ method: 'personal_sign', params: [hex, address] });
    return { address, message, signature };
  },
  async solana() {
    const wallet = wallets.get().find((w) => w.name === 'Example app');
    const changes = [];
    wallet.features['standard:events'].on('change', ({ accounts }) => changes.push(accounts.map((a) => a.address)));
    const { accounts: [account] } = await wallet.features['standard:connect'].connect();
    const message = new TextEncoder().encode('found by getWallets');
    const [signed] = await wallet.features['solana:signMessage'].signMessage({ account, message });
    const input = { statement: 'Sign in to the example', nonce: 'n0nce1234', issuedAt: new Date().toISOString() };
    const [signIn] = await wallet.features['solana:signIn'].signIn(input);
    return {
      address: account.address,
      publicKey: bytes(account.publicKey),
      changes,
      message: bytes(message),
      signature: bytes(signed.signature),
      input,
      signIn: { address: signIn.account.address, signedMessage: bytes(signIn.signedMessage), signature: bytes(signIn.signature) },
    };
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

type DappWindow = {
  app: Promise<unknown>;
  dapp: {
    eip6963(): unknown[];
    solanaWallets(): unknown[];
    evm(): Promise<{ address: Hex; message: string; signature: Hex }>;
    solana(): Promise<{
      address: string;
      publicKey: number[];
      changes: string[][];
      message: number[];
      signature: number[];
      input: { statement: string; nonce: string; issuedAt: string };
      signIn: { address: string; signedMessage: number[]; signature: number[] };
    }>;
  };
};

describe('auth.provider found in Chromium by mipd (EIP-6963) and getWallets() (Wallet Standard)', {
  timeout: 120_000,
}, () => {
  const dir = tempDir('portico-auth-discovery-');
  let service: AuthServer;
  let site: Server;
  let browser: Browser;
  let page: Page;
  let host: string;

  before(async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' };
    service = await startAuthServer({
      dataDir: dir.path,
      masterKey: 'c'.repeat(64),
      verifiers: { jwt: { type: 'jwt', keys: [jwk] } },
    });
    const cfg = JSON.stringify({ clientId: CLIENT_ID, sdkUrl: service.sdkUrl });
    const files = new Map([
      ['/app.js', await bundle(APP_ENTRY)],
      ['/dapp.js', await bundle(DAPP_ENTRY)],
      [
        '/',
        `<!doctype html><html><body><script type="application/json" id="cfg">${cfg}</script>` +
          '<script src="/app.js"></script><script src="/dapp.js"></script></body></html>',
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
    await page.exposeFunction('idToken', (sub: string) =>
      new SignJWT({ sub, jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
        .setIssuedAt()
        .sign(privateKey),
    );
    host = `127.0.0.1:${(site.address() as AddressInfo).port}`;
    await page.goto(`http://${host}/`);
    await page.evaluate(() => (window as never as DappWindow).app.then(() => undefined));
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => site?.close(resolve));
    await service?.close();
    dir.cleanup();
  });

  it('mipd and getWallets() each find the app, announced before the dapp loaded', async () => {
    const [info] = await page.evaluate(() => (window as never as DappWindow).dapp.eip6963());
    const { uuid, ...rest } = info as { uuid: string };
    assert.match(uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(rest, { name: 'Example app', icon: ICON, rdns: 'app.example' });
    assert.deepEqual(await page.evaluate(() => (window as never as DappWindow).dapp.solanaWallets()), [
      {
        name: 'Example app',
        icon: ICON,
        chains: ['solana:devnet'],
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
  });

  it('through what it found the dapp connects (the app logs in), signs with both, and signs in with Solana', async () => {
    const evm = await page.evaluate(() => (window as never as DappWindow).dapp.evm());
    assert.match(evm.address, /^0x[0-9a-fA-F]{40}$/);
    assert.equal(
      await verifyMessage({ address: evm.address, message: evm.message, signature: evm.signature }),
      true,
    );

    const sol = await page.evaluate(() => (window as never as DappWindow).dapp.solana());
    // The EVM connect logged the user in (both Auths); the Solana connect finds them and reports them.
    assert.deepEqual(sol.changes, [[sol.address]]);
    assert.deepEqual(sol.publicKey, Array.from(getAddressEncoder().encode(sol.address as never)));
    const key = await getPublicKeyFromAddress(sol.address as never);
    assert.equal(
      await verifySignature(
        key,
        Uint8Array.from(sol.signature) as SignatureBytes,
        Uint8Array.from(sol.message),
      ),
      true,
    );
    const output = {
      account: {
        address: sol.signIn.address,
        publicKey: Uint8Array.from(sol.publicKey),
        chains: ['solana:devnet'] as const,
        features: [],
      },
      signedMessage: Uint8Array.from(sol.signIn.signedMessage),
      signature: Uint8Array.from(sol.signIn.signature),
    };
    // The page's host is the domain: the wallet fills it in as a SIWS wallet does.
    assert.equal(verifySignIn({ ...sol.input, domain: host, address: sol.address }, output), true);
    assert.equal(verifySignIn({ ...sol.input, domain: 'evil.example' }, output), false);
  });
});
