import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getMultichainClient, type MultichainApiClient } from '@metamask/multichain-api-client';
import {
  createWalletBridge,
  createWebSocketTransport,
  getPorticoTransport,
  type SessionScopes,
  type WalletBridge,
  type WalletNotification,
} from '@portico/multichain';
import { base58 } from '@scure/base';
import { verifyMessage } from 'viem';
import { startWallet, verifySolanaSignature, type Wallet } from '../src/index.ts';
import { answer, waitForApproval } from './helpers.ts';

// One per-origin CAIP-25 permission behind every interface of the browser bridge: EIP-1193 and the
// Solana Wallet Standard change the session wallet_getSession shows, each only its own namespace
// (MetaMask drops the EVM connection when Solana connects: metamask-extension#34112).
const EVM = 'eip155:31337';
const SOLANA = 'solana:PorticoLocal11111111111111111111';
const ORIGIN = 'https://one-permission.test';
const ICON = 'data:image/svg+xml;base64,PHN2Zy8+' as const;

describe('one permission behind EIP-1193, the Wallet Standard and the Multichain API', () => {
  let wallet: Wallet;
  let bridge: WalletBridge;
  let observer: MultichainApiClient<never>;
  const observed: SessionScopes[] = [];
  const bridgeHeard: SessionScopes[] = [];

  before(async () => {
    wallet = await startWallet({
      // Nothing here reads a chain: connections and signatures are answered by the wallet itself.
      chains: [
        { chainId: EVM, rpcUrl: 'http://127.0.0.1:9' },
        { chainId: SOLANA, rpcUrl: 'http://127.0.0.1:9' },
      ],
      accountCount: 2,
    });
    bridge = createWalletBridge({
      transport: createWebSocketTransport({ url: wallet.wsUrl, origin: ORIGIN }),
      chains: [EVM, SOLANA],
      name: 'Portico',
      icon: ICON,
      origin: ORIGIN,
    });
    bridge.multichain.onNotification((notification: WalletNotification) => {
      if (notification.method === 'wallet_sessionChanged')
        bridgeHeard.push(notification.params.sessionScopes);
    });
    // Another tab of the same origin on the Multichain API, through MetaMask's own client.
    observer = getMultichainClient({ transport: getPorticoTransport({ url: wallet.wsUrl, origin: ORIGIN }) });
    await observer.getSession();
    observer.onNotification((notification) => {
      const { method, params } = notification as WalletNotification;
      if (method === 'wallet_sessionChanged') observed.push(params.sessionScopes);
    });
    await bridge.ready;
  });
  after(async () => {
    await bridge?.close();
    await wallet?.close();
  });

  test('connect EVM, then Solana, then EVM again: both stay connected throughout, and every change is heard', async () => {
    const [evm0, evm1] = wallet.accounts.eip155;
    const [sol0] = wallet.accounts.solana;
    const session = async () => ((await observer.getSession())?.sessionScopes ?? {}) as SessionScopes;
    const accountsOf = (scopes: SessionScopes, scope: string) =>
      (scopes[scope as keyof SessionScopes]?.accounts ?? []).map((account) => account.split(':')[2]);
    const accountsChanged: unknown[] = [];
    bridge.ethereum.on('accountsChanged', (accounts) => accountsChanged.push(accounts));
    const solanaChanges: string[][] = [];
    bridge.solana.features['standard:events'].on('change', ({ accounts }) =>
      solanaChanges.push((accounts ?? []).map((account) => account.address)),
    );

    // 1. EVM through EIP-1193; the person grants one account on the approval page.
    const requested = bridge.ethereum.request({ method: 'eth_requestAccounts' });
    const evmAsk = await waitForApproval(wallet, 'connection');
    assert.equal(evmAsk.origin, ORIGIN);
    assert.deepEqual(Object.keys(evmAsk.scopes), [EVM]);
    assert.deepEqual(evmAsk.keeps, []);
    await answer(wallet, evmAsk.id, { approved: true, accounts: { eip155: [evm0] } });
    assert.deepEqual(await requested, [evm0]);
    assert.deepEqual(accountsOf(await session(), EVM), [evm0]);
    assert.deepEqual(Object.keys(observed.at(-1) ?? {}), [EVM]);

    // 2. Solana through the Wallet Standard: EVM stays.
    const connected = bridge.solana.features['standard:connect'].connect();
    const solanaAsk = await waitForApproval(wallet, 'connection');
    assert.deepEqual(Object.keys(solanaAsk.scopes), [SOLANA]);
    assert.deepEqual(solanaAsk.keeps, [EVM]);
    await answer(wallet, solanaAsk.id, { approved: true, accounts: { solana: [sol0] } });
    assert.deepEqual(
      (await connected).accounts.map((account) => account.address),
      [sol0],
    );
    let scopes = await session();
    assert.deepEqual(accountsOf(scopes, EVM), [evm0]);
    assert.deepEqual(accountsOf(scopes, SOLANA), [sol0]);
    assert.deepEqual(await bridge.ethereum.request({ method: 'eth_accounts' }), [evm0]);
    assert.deepEqual(Object.keys(observed.at(-1) ?? {}).sort(), [EVM, SOLANA]);

    // 3. EVM again (wallet_requestPermissions always asks): the person now picks another account; Solana stays.
    const permitted = bridge.ethereum.request({
      method: 'wallet_requestPermissions',
      params: [{ eth_accounts: {} }],
    });
    const again = await waitForApproval(wallet, 'connection');
    assert.deepEqual(Object.keys(again.scopes), [EVM]);
    assert.deepEqual(again.keeps, [SOLANA]);
    await answer(wallet, again.id, { approved: true, accounts: { eip155: [evm1] } });
    const permissions = (await permitted) as { parentCapability: string; caveats: { value: string[] }[] }[];
    assert.equal(permissions[0].parentCapability, 'eth_accounts');
    assert.deepEqual(permissions[0].caveats[0].value, [evm1]);
    scopes = await session();
    assert.deepEqual(accountsOf(scopes, EVM), [evm1]);
    assert.deepEqual(accountsOf(scopes, SOLANA), [sol0]);
    assert.deepEqual(
      bridge.solana.accounts.map((account) => account.address),
      [sol0],
    );

    // Both connections sign.
    const signature = bridge.ethereum.request({ method: 'personal_sign', params: ['0x6869', evm1] });
    await answer(wallet, (await waitForApproval(wallet, 'signature')).id, { approved: true });
    assert.ok(
      await verifyMessage({
        address: evm1 as `0x${string}`,
        message: 'hi',
        signature: (await signature) as `0x${string}`,
      }),
    );
    const message = new TextEncoder().encode('hi solana');
    const signing = bridge.solana.features['solana:signMessage'].signMessage({
      account: bridge.solana.accounts[0],
      message,
    });
    await answer(wallet, (await waitForApproval(wallet, 'signature')).id, { approved: true });
    const [signed] = await signing;
    assert.ok(verifySolanaSignature(signed.signature, message, base58.decode(sol0)));

    // Giving up one namespace keeps the other.
    await bridge.ethereum.request({ method: 'wallet_revokePermissions', params: [{ eth_accounts: {} }] });
    scopes = await session();
    assert.deepEqual(Object.keys(scopes), [SOLANA]);
    assert.deepEqual(await bridge.ethereum.request({ method: 'eth_accounts' }), []);
    assert.deepEqual(
      bridge.solana.accounts.map((account) => account.address),
      [sol0],
    );
    await bridge.solana.features['standard:disconnect'].disconnect();
    assert.deepEqual(await session(), {});

    assert.deepEqual(accountsChanged, [[evm0], [evm1], []]);
    assert.deepEqual(solanaChanges, [[sol0], []]);
    // The page's Multichain API heard every change, whichever interface made it.
    assert.deepEqual(
      bridgeHeard.map((heard) => Object.keys(heard).sort()),
      [[EVM], [EVM, SOLANA], [EVM, SOLANA], [SOLANA], []],
    );
  });
});
