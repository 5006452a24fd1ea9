import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getMultichainClient, MultichainApiError } from '@metamask/multichain-api-client';
import { type Anvil, startAnvil } from '@portico/devchain';
import {
  createMultichainClient,
  createWebSocketTransport,
  getPorticoTransport,
  MultichainRpcError,
  type SessionScopes,
  type WalletNotification,
} from '@portico/multichain';
import { createPublicClient, type Hex, http, verifyMessage } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { DEV_MNEMONIC, startWallet, type Wallet } from '../src/index.ts';
import { stopAnvil } from './helpers.ts';

const KEPT = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 1 });
const DROPPED = mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 });
const NEWCOMER = privateKeyToAccount(generatePrivateKey());

/** Both clients: MetaMask's hands listeners `unknown`, Portico's a WalletNotification. */
type Listener = { onNotification: (listener: (data: unknown) => void) => unknown };

/** Resolves with the next wallet_sessionChanged a client hears (bounded by the test runner's timeout). */
function nextSessionChanged(client: Listener): Promise<SessionScopes> {
  return new Promise((resolve) => {
    client.onNotification((data) => {
      const notification = data as WalletNotification;
      if (notification.method === 'wallet_sessionChanged') resolve(notification.params.sessionScopes);
    });
  });
}

/** The JSON-RPC error code a call of either client fails with (the test fails if it succeeds). */
async function errorCode(call: unknown): Promise<number> {
  try {
    await call;
  } catch (error) {
    if (error instanceof MultichainRpcError) return error.code;
    if (error instanceof MultichainApiError) return (error.cause as { code: number }).code;
    throw error;
  }
  assert.fail('expected the call to fail');
}

function accountsOf(scopes: SessionScopes): Record<string, string[]> {
  return Object.fromEntries(Object.entries(scopes).map(([scope, value]) => [scope, value.accounts]));
}

// A notification that never comes fails the test after 60 s instead of hanging the suite.
describe('the wallet changes accounts and chains at run time; every affected connection hears it', {
  timeout: 60_000,
}, () => {
  let first: Anvil;
  let second: Anvil;
  let wallet: Wallet;
  const MAIN = 'eip155:31337';
  const OTHER = 'eip155:31338';

  before(async () => {
    [first, second] = await Promise.all([startAnvil(), startAnvil({ chainId: 31338 })]);
    wallet = await startWallet({
      chains: [
        { chainId: MAIN, rpcUrl: first.url, wsRpcUrl: first.wsUrl },
        { chainId: OTHER, rpcUrl: second.url },
      ],
      accountCount: 3,
      autoApprove: true,
    });
  });
  after(async () => {
    await wallet?.close();
    await Promise.all([stopAnvil(first), stopAnvil(second)]);
  });

  test('a new session, replaced accounts, a granted account, a removed chain and a replaced session reach both tabs of an origin (MetaMask and Portico clients) and another origin, over WebSocket on anvil', async () => {
    const origin = 'https://two-tabs.test';
    // Tab 1 speaks through @metamask/multichain-api-client, tab 2 through Portico's own client.
    const tab1 = getMultichainClient({ transport: getPorticoTransport({ url: wallet.wsUrl, origin }) });
    const tab2 = createMultichainClient({
      transport: createWebSocketTransport({ url: wallet.wsUrl, origin }),
    });
    const elsewhere = getMultichainClient({
      transport: getPorticoTransport({ url: wallet.wsUrl, origin: 'https://elsewhere.test' }),
    });
    await Promise.all([tab2.getSession(), elsewhere.getSession()]);

    // A new session reaches the other tab at once.
    let tab2Heard = nextSessionChanged(tab2);
    const created = await tab1.createSession({
      optionalScopes: {
        [MAIN]: { methods: ['personal_sign', 'eth_sendTransaction'], notifications: [] },
        [OTHER]: { methods: ['eth_blockNumber'], notifications: [] },
      },
    });
    assert.deepEqual(await tab2Heard, created.sessionScopes);
    await elsewhere.createSession({ optionalScopes: { [OTHER]: { methods: [], notifications: [] } } });

    // Replace the eip155 accounts: one kept, two dropped, one new (not granted until a person says so).
    let tab1Heard = nextSessionChanged(tab1);
    tab2Heard = nextSessionChanged(tab2);
    let elsewhereHeard = nextSessionChanged(elsewhere);
    await wallet.replaceAccounts('eip155', [KEPT, NEWCOMER]);
    const kept = { [MAIN]: [`${MAIN}:${KEPT.address}`], [OTHER]: [`${OTHER}:${KEPT.address}`] };
    assert.deepEqual(accountsOf(await tab1Heard), kept);
    assert.deepEqual(accountsOf(await tab2Heard), kept);
    assert.deepEqual(accountsOf(await elsewhereHeard), { [OTHER]: [`${OTHER}:${KEPT.address}`] });
    assert.deepEqual(wallet.accounts.eip155, [KEPT.address, NEWCOMER.address]);
    const signWithDropped = tab1.invokeMethod({
      scope: MAIN,
      request: { method: 'personal_sign', params: ['0x68656c6c6f', DROPPED.address] } as never,
    });
    assert.equal(await errorCode(signWithDropped), 4100, 'a dropped account no longer signs');

    // A person grants the new account to the origin: both tabs hear it, and its key signs on anvil.
    tab1Heard = nextSessionChanged(tab1);
    tab2Heard = nextSessionChanged(tab2);
    await wallet.engine.addAccount(origin, 'eip155', NEWCOMER.address);
    const granted = [`${MAIN}:${KEPT.address}`, `${MAIN}:${NEWCOMER.address}`];
    assert.deepEqual((await tab1Heard)[MAIN].accounts, granted);
    assert.deepEqual((await tab2Heard)[MAIN].accounts, granted);
    const signature = await tab2.invokeMethod<Hex>({
      scope: MAIN,
      request: { method: 'personal_sign', params: ['0x68656c6c6f', NEWCOMER.address] },
    });
    assert.ok(await verifyMessage({ address: NEWCOMER.address, message: 'hello', signature }));
    const chain = createPublicClient({ transport: http(first.url) });
    await chain.request({
      method: 'anvil_setBalance' as never,
      params: [NEWCOMER.address, '0xde0b6b3a7640000'] as never,
    });
    const hash = await tab2.invokeMethod<Hex>({
      scope: MAIN,
      request: {
        method: 'eth_sendTransaction',
        params: [{ from: NEWCOMER.address, to: KEPT.address, value: '0x1' }],
      },
    });
    const receipt = await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    assert.equal(receipt.from.toLowerCase(), NEWCOMER.address.toLowerCase());

    // Remove a chain: it leaves the two-tab session; the other origin's only chain goes, so its session ends.
    tab1Heard = nextSessionChanged(tab1);
    tab2Heard = nextSessionChanged(tab2);
    elsewhereHeard = nextSessionChanged(elsewhere);
    assert.equal(await wallet.removeChain(OTHER), true);
    assert.deepEqual(Object.keys(await tab1Heard), [MAIN]);
    assert.deepEqual(Object.keys(await tab2Heard), [MAIN]);
    assert.deepEqual(await elsewhereHeard, {});
    assert.deepEqual(wallet.chains, [MAIN]);
    const removedChain = tab2.invokeMethod({
      scope: OTHER,
      request: { method: 'eth_blockNumber', params: [] },
    });
    assert.equal(await errorCode(removedChain), 4100);
    const askAgain = elsewhere.createSession({
      optionalScopes: { [OTHER]: { methods: [], notifications: [] } },
    });
    assert.equal(await errorCode(askAgain), 5100, 'a removed chain is no longer granted');
    assert.equal(await wallet.removeChain(OTHER), false, 'removing it again changes nothing');

    // Served again, the chain is offered to the next request (and granted to no one before that).
    await wallet.addChain({ chainId: OTHER, rpcUrl: second.url });
    assert.deepEqual(wallet.chains, [MAIN, OTHER]);
    const back = await elsewhere.createSession({
      optionalScopes: { [OTHER]: { methods: ['eth_chainId'], notifications: [] } },
    });
    assert.deepEqual(Object.keys(back.sessionScopes), [OTHER]);
    assert.equal(
      await elsewhere.invokeMethod({ scope: OTHER, request: { method: 'eth_chainId', params: [] } } as never),
      '0x7a6a',
    );
    assert.deepEqual(Object.keys(tab2.session?.sessionScopes ?? {}), [MAIN]);

    // A new wallet_createSession from tab 2 replaces the session; tab 1 hears it at once.
    tab1Heard = nextSessionChanged(tab1);
    const replaced = await tab2.createSession({
      optionalScopes: {
        [MAIN]: { methods: ['eth_chainId'], notifications: [] },
        'wallet:eip155': { methods: [], notifications: [] },
      },
    });
    assert.deepEqual(await tab1Heard, replaced.sessionScopes);
    assert.deepEqual(Object.keys(replaced.sessionScopes), [MAIN, 'wallet:eip155']);

    await Promise.all([tab1.revokeSession({}), elsewhere.revokeSession({})]);
    await tab2.close();
  });
});
