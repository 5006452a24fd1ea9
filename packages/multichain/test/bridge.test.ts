import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createInProcessTransport, createWalletBridge, ProviderRpcError } from '../src/index.ts';
import { ACCOUNT_A, ACCOUNT_B, connectDapp, createTestWallet } from './helpers.ts';

// The bridge's EIP-1193 side against a real engine (in-process); the EVM + Solana sequence runs
// against the reference wallet in packages/wallet/test/one-permission.test.ts and discovery.test.ts.
const ORIGIN = 'https://dapp.example';
const ICON = 'data:image/svg+xml;base64,PHN2Zy8+' as const;

function bridgeOf(engine: Parameters<typeof createInProcessTransport>[0]) {
  return createWalletBridge({
    transport: createInProcessTransport(engine, { origin: ORIGIN }),
    chains: ['eip155:1', 'eip155:10'],
    name: 'Test',
    icon: ICON,
    origin: ORIGIN,
  });
}

async function providerError(call: Promise<unknown>): Promise<ProviderRpcError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof ProviderRpcError, `expected a ProviderRpcError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}

describe('browser bridge: EIP-1193 over the origin session', () => {
  test('eth_requestAccounts asks once, for every EVM chain; later calls answer from the session', async () => {
    const { engine, approvals } = createTestWallet();
    const { ethereum } = bridgeOf(engine);
    assert.equal(await ethereum.request({ method: 'eth_chainId' }), '0x1');
    assert.deepEqual(await ethereum.request({ method: 'eth_accounts' }), []);
    assert.deepEqual(await ethereum.request({ method: 'eth_requestAccounts' }), [ACCOUNT_A, ACCOUNT_B]);
    assert.deepEqual(await ethereum.request({ method: 'eth_requestAccounts' }), [ACCOUNT_A, ACCOUNT_B]);
    assert.equal(approvals.length, 1);
    assert.deepEqual(Object.keys(approvals[0].scopes), ['eip155:1', 'eip155:10']);
    assert.equal(await ethereum.request({ method: 'eth_blockNumber' }), '0x10');
    assert.deepEqual(await ethereum.request({ method: 'wallet_getPermissions' }), [
      {
        parentCapability: 'eth_accounts',
        invoker: ORIGIN,
        caveats: [{ type: 'restrictReturnedAccounts', value: [ACCOUNT_A, ACCOUNT_B] }],
      },
    ]);
  });

  test('a rejection is 4001 and changes nothing; wallet_revokePermissions gives up only eip155', async () => {
    const { engine, setApprove } = createTestWallet({
      supported: () => ({
        'eip155:1': { methods: ['eth_blockNumber'], notifications: [] },
        'eip155:10': { methods: ['eth_blockNumber'], notifications: [] },
        'bip122:000000000019d6689c085ae165831e93': { methods: ['signPsbt'], notifications: [] },
      }),
    });
    const other = connectDapp(engine, ORIGIN);
    await other.client.createSession({
      optionalScopes: { 'bip122:000000000019d6689c085ae165831e93': { methods: [], notifications: [] } },
    });
    const { ethereum } = bridgeOf(engine);
    const heard: unknown[] = [];
    ethereum.on('accountsChanged', (accounts) => heard.push(accounts));
    setApprove(() => ({ approved: false }));
    assert.equal((await providerError(ethereum.request({ method: 'eth_requestAccounts' }))).code, 4001);
    assert.deepEqual(Object.keys((await other.client.getSession()).sessionScopes), [
      'bip122:000000000019d6689c085ae165831e93',
    ]);
    setApprove(() => ({ approved: true, accounts: { eip155: [ACCOUNT_B] } }));
    await ethereum.request({ method: 'wallet_requestPermissions', params: [{ eth_accounts: {} }] });
    assert.deepEqual(Object.keys((await other.client.getSession()).sessionScopes).sort(), [
      'bip122:000000000019d6689c085ae165831e93',
      'eip155:1',
      'eip155:10',
    ]);
    assert.equal(
      await ethereum.request({ method: 'wallet_revokePermissions', params: [{ eth_accounts: {} }] }),
      null,
    );
    assert.deepEqual(Object.keys((await other.client.getSession()).sessionScopes), [
      'bip122:000000000019d6689c085ae165831e93',
    ]);
    assert.deepEqual(heard, [[ACCOUNT_B], []]);
  });

  test('bad input: unknown chains are 4902, malformed ones and other permissions -32602, other Multichain methods -32601', async () => {
    const { engine } = createTestWallet();
    const { ethereum, multichain } = bridgeOf(engine);
    const changed: unknown[] = [];
    ethereum.on('chainChanged', (chainId) => changed.push(chainId));
    assert.equal(
      await ethereum.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0xa' }] }),
      null,
    );
    assert.deepEqual(changed, ['0xa']);
    assert.equal(await ethereum.request({ method: 'eth_chainId' }), '0xa');
    const unknown = ethereum.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x5' }] });
    assert.equal((await providerError(unknown)).code, 4902);
    const malformed = ethereum.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: 10 }] });
    assert.equal((await providerError(malformed)).code, -32602);
    const other = ethereum.request({ method: 'wallet_requestPermissions', params: [{ eth_sign: {} }] });
    assert.equal((await providerError(other)).code, -32602);
    assert.equal((await providerError(multichain.request({ method: 'eth_accounts' }))).code, -32601);
    // Not connected: a method needing the session is the engine's 4100.
    assert.equal((await providerError(ethereum.request({ method: 'eth_blockNumber' }))).code, 4100);
  });

  test('after a dropped connection the bridge says disconnect and reads the session again before answering', async () => {
    const { engine } = createTestWallet();
    // The in-process transport cannot drop; this wrapper drops it the way a closed WebSocket does.
    const inner = createInProcessTransport(engine, { origin: ORIGIN });
    const drops = new Set<(error: Error) => void>();
    const transport = {
      ...inner,
      onDisconnect: (listener: (error: Error) => void) => {
        drops.add(listener);
        return () => drops.delete(listener);
      },
    };
    const { ethereum } = createWalletBridge({
      transport,
      chains: ['eip155:1'],
      name: 'Test',
      icon: ICON,
      origin: ORIGIN,
    });
    const disconnects: unknown[] = [];
    ethereum.on('disconnect', (error) => disconnects.push((error as ProviderRpcError).code));
    await ethereum.request({ method: 'eth_requestAccounts' });
    await inner.close();
    for (const listener of drops) listener(new Error('socket closed'));
    // While it was down the wallet ended the session: the bridge heard nothing.
    await engine.revokeSession(ORIGIN);
    assert.deepEqual(disconnects, [4900]);
    assert.deepEqual(await ethereum.request({ method: 'eth_accounts' }), []);
  });
});
