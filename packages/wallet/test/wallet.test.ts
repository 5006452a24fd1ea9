import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { getMultichainClient, MultichainApiError } from '@metamask/multichain-api-client';
import { type Anvil, startAnvil } from '@portico/devchain';
import { getPorticoTransport, type WalletNotification } from '@portico/multichain';
import { serviceUrl, tempDir } from '@portico/testkit';
import { createPublicClient, type Hex, http, parseEther, verifyMessage, verifyTypedData } from 'viem';
import WebSocket from 'ws';
import {
  AUTO_APPROVE_WARNING,
  startWallet,
  type Wallet,
  walletBannerLines,
  walletConfigOut,
} from '../src/index.ts';
import { stopAnvil } from './helpers.ts';

const SCOPE = 'eip155:31337';
const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ACCOUNT_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const typedData = {
  domain: { name: 'Portico', version: '1', chainId: 31337 },
  types: { Mail: [{ name: 'contents', type: 'string' }] },
  primaryType: 'Mail',
  message: { contents: 'hello' },
} as const;

function dapp(wallet: Wallet, origin = 'https://dapp.test') {
  const client = getMultichainClient({ transport: getPorticoTransport({ url: wallet.wsUrl, origin }) });
  const notifications: WalletNotification[] = [];
  client.onNotification((data) => notifications.push(data as WalletNotification));
  const next = (predicate: (n: WalletNotification) => boolean) =>
    new Promise<WalletNotification>((resolve) => {
      const off = client.onNotification((data) => {
        if (predicate(data as WalletNotification)) {
          off();
          resolve(data as WalletNotification);
        }
      });
    });
  return { client, notifications, next };
}

async function apiError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof MultichainApiError, String(error));
    return error.cause as { code: number; message: string };
  }
  assert.fail('expected an error');
}

describe('reference wallet with @metamask/multichain-api-client over the Portico transport, on anvil', () => {
  let anvil: Anvil;
  let wallet: Wallet;
  const dir = tempDir();
  before(async () => {
    anvil = await startAnvil();
    wallet = await startWallet({
      dataDir: dir.path,
      chains: [{ chainId: SCOPE, rpcUrl: anvil.url, wsRpcUrl: anvil.wsUrl }],
      autoApprove: true,
    });
  });
  after(async () => {
    await wallet?.close();
    await stopAnvil(anvil);
    dir.cleanup();
  });

  test('connect, read, sign, send, get wallet_notify for a new block, revoke and get sessionChanged', async () => {
    const { client, next } = dapp(wallet);
    const session = await client.createSession({
      optionalScopes: {
        [SCOPE]: { methods: ['eth_blockNumber', 'personal_sign'], notifications: ['eth_subscription'] },
      },
    });
    const scope = session.sessionScopes[SCOPE];
    assert.ok(scope.methods.includes('eth_sendTransaction'), 'every supported method is granted');
    assert.deepEqual(scope.notifications, ['eth_subscription']);
    assert.equal(scope.accounts?.[0], `${SCOPE}:${ACCOUNT_0}`);

    const blockNumber = await client.invokeMethod({
      scope: SCOPE,
      request: { method: 'eth_blockNumber', params: [] } as never,
    });
    assert.match(String(blockNumber), /^0x[0-9a-f]+$/);
    const balance = await client.invokeMethod({
      scope: SCOPE,
      request: { method: 'eth_getBalance', params: [ACCOUNT_0, 'latest'] } as never,
    });
    assert.ok(BigInt(balance as string) > 0n);

    const signature = (await client.invokeMethod({
      scope: SCOPE,
      request: { method: 'personal_sign', params: ['0x68656c6c6f', ACCOUNT_0] } as never,
    })) as Hex;
    assert.ok(await verifyMessage({ address: ACCOUNT_0, message: 'hello', signature }));

    const hash = (await client.invokeMethod({
      scope: SCOPE,
      request: {
        method: 'eth_sendTransaction',
        params: [{ from: ACCOUNT_0, to: ACCOUNT_1, value: '0xde0b6b3a7640000' }],
      } as never,
    })) as Hex;
    const chain = createPublicClient({ transport: http(anvil.url) });
    const receipt = await chain.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.from.toLowerCase(), ACCOUNT_0.toLowerCase());
    const tx = await chain.getTransaction({ hash });
    assert.equal(tx.value, parseEther('1'));

    const subscription = await client.invokeMethod({
      scope: SCOPE,
      request: { method: 'eth_subscribe', params: ['newHeads'] } as never,
    });
    const notified = next((n) => n.method === 'wallet_notify');
    await chain.request({ method: 'evm_mine' as never });
    const notify = await notified;
    assert.equal(notify.method, 'wallet_notify');
    const { scope: notifiedScope, notification } = notify.params as {
      scope: string;
      notification: { method: string; params: { subscription: string; result: { number: Hex } } };
    };
    assert.equal(notifiedScope, SCOPE);
    assert.equal(notification.method, 'eth_subscription');
    assert.equal(notification.params.subscription, subscription);
    assert.ok(BigInt(notification.params.result.number) > BigInt(blockNumber as string));

    const changed = next((n) => n.method === 'wallet_sessionChanged');
    await client.revokeSession({});
    assert.deepEqual((await changed).params, { sessionScopes: {} });
  });

  test('a logs subscription relays the logs of a contract the dapp deployed through the wallet', async () => {
    const { client, next } = dapp(wallet, 'https://logs.test');
    await client.createSession({
      optionalScopes: { [SCOPE]: { methods: [], notifications: ['eth_subscription'] } },
    });
    const invoke = (method: string, params: unknown[]) =>
      Promise.resolve(client.invokeMethod({ scope: SCOPE, request: { method, params } as never }));
    // Runtime code PUSH1 0 PUSH1 0 LOG0 STOP: every call emits one empty log.
    const deploy = (await invoke('eth_sendTransaction', [
      { from: ACCOUNT_0, data: '0x6006600c60003960066000f360006000a000' },
    ])) as Hex;
    const chain = createPublicClient({ transport: http(anvil.url) });
    const { contractAddress } = await chain.waitForTransactionReceipt({ hash: deploy, pollingInterval: 50 });
    assert.ok(contractAddress);
    const subscription = await invoke('eth_subscribe', ['logs', { address: contractAddress }]);
    const notified = next((n) => n.method === 'wallet_notify');
    const call = (await invoke('eth_sendTransaction', [{ from: ACCOUNT_0, to: contractAddress }])) as Hex;
    const { params } = await notified;
    const { notification } = params as unknown as {
      notification: {
        params: { subscription: string; result: { address: string; transactionHash: string } };
      };
    };
    assert.equal(notification.params.subscription, subscription);
    assert.equal(notification.params.result.address.toLowerCase(), contractAddress.toLowerCase());
    assert.equal(notification.params.result.transactionHash, call);
    assert.equal(await invoke('eth_unsubscribe', [subscription]), true);
    await client.revokeSession({});
  });

  test('eth_signTypedData_v4 signs with the chosen account', async () => {
    const { client } = dapp(wallet, 'https://typed.test');
    await client.createSession({ optionalScopes: { [SCOPE]: { methods: [], notifications: [] } } });
    const signature = (await client.invokeMethod({
      scope: SCOPE,
      request: { method: 'eth_signTypedData_v4', params: [ACCOUNT_1, JSON.stringify(typedData)] } as never,
    })) as Hex;
    assert.ok(await verifyTypedData({ address: ACCOUNT_1, signature, ...typedData }));
    await client.revokeSession({});
  });

  test('signing with an account outside the session is 4100; an upstream error is the top-level error', async () => {
    const restricted = await startWallet({
      chains: [{ chainId: SCOPE, rpcUrl: anvil.url }],
      accountCount: 2,
      autoApprove: false,
    });
    try {
      const { client } = dapp(restricted, 'https://restricted.test');
      const pending = client.createSession({
        optionalScopes: { [SCOPE]: { methods: [], notifications: [] } },
      });
      const approval = await waitForApproval(restricted);
      await answer(restricted, approval.id, { approved: true, accounts: { eip155: [ACCOUNT_1] } });
      assert.deepEqual((await pending).sessionScopes[SCOPE].accounts, [`${SCOPE}:${ACCOUNT_1}`]);
      const denied = await apiError(
        client.invokeMethod({
          scope: SCOPE,
          request: { method: 'personal_sign', params: ['0x00', ACCOUNT_0] } as never,
        }),
      );
      assert.equal(denied.code, 4100);
      const upstream = await apiError(
        client.invokeMethod({
          scope: SCOPE,
          request: { method: 'eth_getBalance', params: ['not-an-address'] } as never,
        }),
      );
      assert.equal(typeof upstream.code, 'number');
      assert.notEqual(upstream.code, 4100);
      const unknown = await apiError(
        client.invokeMethod({
          scope: 'eip155:1',
          request: { method: 'eth_blockNumber', params: [] } as never,
        }),
      );
      assert.equal(unknown.code, 4100);
    } finally {
      await restricted.close();
    }
  });

  test('one request per origin waits (another is -32002) and a request whose dapp disconnects is dropped', async () => {
    const manual = await startWallet({ chains: [{ chainId: SCOPE, rpcUrl: anvil.url }] });
    try {
      const first = dapp(manual, 'https://pending.test');
      const waiting = Promise.resolve(
        first.client.createSession({ optionalScopes: { [SCOPE]: { methods: [], notifications: [] } } }),
      );
      waiting.catch(() => {});
      await waitForApproval(manual);
      const second = dapp(manual, 'https://pending.test');
      const duplicate = await apiError(
        Promise.resolve(
          second.client.createSession({ optionalScopes: { [SCOPE]: { methods: [], notifications: [] } } }),
        ),
      );
      assert.equal(duplicate.code, -32002);
      await Promise.resolve(first.client.revokeSession({})).catch(() => {});
      for (;;) {
        if (((await api(manual, '/api/approvals')) as unknown[]).length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await manual.close();
    }
  });

  test('names from outside never reach Object.prototype: JSON-RPC methods, invoked methods and scopes, the approval API', async () => {
    const guarded = await startWallet({ chains: [{ chainId: SCOPE, rpcUrl: anvil.url }] });
    const socket = new WebSocket(guarded.wsUrl, { origin: 'https://proto.test' });
    try {
      await once(socket, 'open');
      type Response = { id: number; result?: unknown; error?: { code: number } };
      const waiting = new Map<number, (response: Response) => void>();
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as Response;
        waiting.get(message.id)?.(message);
      });
      let id = 0;
      const call = (method: string, params?: unknown) =>
        new Promise<Response>((resolve) => {
          waiting.set(++id, resolve);
          socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
        });
      for (const name of ['hasOwnProperty', 'constructor', '__proto__', 'toString'])
        assert.equal((await call(name, {})).error?.code, -32601, name);

      // The approval API: an id named after a prototype member is no pending request; an answer
      // naming scopes that were not offered grants none of them.
      const requested = call('wallet_createSession', {
        optionalScopes: { [SCOPE]: { methods: [], notifications: [] } },
      });
      const first = await waitForApproval(guarded);
      const [base, token] = guarded.approvalUrl.split('/approve#token=');
      for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) {
        const response = await fetch(`${base}/api/approvals/${name}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: '{"approved":true}',
        });
        assert.equal(response.status, 404, name);
      }
      const bogus = `{"approved":true,"scopes":["__proto__","toString"],"accounts":{"__proto__":["${ACCOUNT_0}"]}}`;
      await api(guarded, `/api/approvals/${first.id}`, { method: 'POST', body: bogus });
      assert.equal((await requested).error?.code, 4001);

      const again = call('wallet_createSession', {
        optionalScopes: { [SCOPE]: { methods: [], notifications: [] } },
      });
      const second = await waitForApproval(guarded);
      const mixed = `{"approved":true,"scopes":["constructor","${SCOPE}"],"accounts":{"__proto__":["${ACCOUNT_0}"],"eip155":["${ACCOUNT_1}"]}}`;
      await api(guarded, `/api/approvals/${second.id}`, { method: 'POST', body: mixed });
      const { result } = await again;
      assert.deepEqual(Object.keys((result as { sessionScopes: object }).sessionScopes), [SCOPE]);
      assert.deepEqual(
        (result as { sessionScopes: Record<string, { accounts: string[] }> }).sessionScopes[SCOPE].accounts,
        [`${SCOPE}:${ACCOUNT_1}`],
      );

      for (const name of ['constructor', '__proto__', 'toString']) {
        const method = await call('wallet_invokeMethod', {
          scope: SCOPE,
          request: { method: name, params: [] },
        });
        assert.equal(method.error?.code, 4100, `method ${name}`);
        const scope = await call('wallet_invokeMethod', {
          scope: name,
          request: { method: 'eth_chainId', params: [] },
        });
        assert.equal(scope.error?.code, 4100, `scope ${name}`);
      }
      const chainId = await call('wallet_invokeMethod', {
        scope: SCOPE,
        request: { method: 'eth_chainId', params: [] },
      });
      assert.equal(chainId.result, '0x7a69', 'the wallet keeps serving');
    } finally {
      socket.close();
      await guarded.close();
    }
  });

  test('banner lines and the config-out section name the endpoints and warn about auto-approval', () => {
    const lines = walletBannerLines(wallet);
    assert.ok(lines.some((line) => line.includes(wallet.wsUrl)));
    assert.ok(lines.some((line) => line.includes(wallet.approvalUrl)));
    assert.ok(lines.includes(AUTO_APPROVE_WARNING));
    const config = walletConfigOut(wallet);
    assert.equal(config.wsUrl, wallet.wsUrl);
    assert.match(config.wsUrl, /^ws:\/\/127\.0\.0\.1:\d+\/multichain$/);
    assert.match(config.approvalUrl, /^http:\/\/127\.0\.0\.1:\d+\/approve#token=.+$/);
    assert.deepEqual(config.chains, [SCOPE]);
    assert.equal(config.accounts.eip155[0], ACCOUNT_0);
  });

  test('the approval API refuses requests without the token from the approval URL', async () => {
    const base = wallet.approvalUrl.split('/approve')[0];
    assert.equal((await fetch(`${base}/api/approvals`)).status, 401);
    assert.equal(
      (await fetch(`${base}/api/approvals`, { headers: { authorization: 'Bearer wrong' } })).status,
      401,
    );
    const page = await fetch(`${base}/approve`);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
  });

  test('newHeads without a WebSocket RPC URL is polled over HTTP', async () => {
    const polling = await startWallet({
      chains: [{ chainId: SCOPE, rpcUrl: anvil.url }],
      autoApprove: true,
      pollingIntervalMs: 50,
    });
    try {
      const { client, next } = dapp(polling, 'https://polling.test');
      await client.createSession({
        optionalScopes: { [SCOPE]: { methods: [], notifications: ['eth_subscription'] } },
      });
      await client.invokeMethod({
        scope: SCOPE,
        request: { method: 'eth_subscribe', params: ['newHeads'] } as never,
      });
      const notified = next((n) => n.method === 'wallet_notify');
      await fetch(anvil.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'evm_mine', params: [] }),
      });
      const { params } = await notified;
      assert.equal((params as { notification: { method: string } }).notification.method, 'eth_subscription');
    } finally {
      await polling.close();
    }
  });

  test('with databaseUrl a session lives in PostgreSQL and survives a restart', {
    skip: serviceUrl('DATABASE_URL').skip,
  }, async () => {
    const databaseUrl = serviceUrl('DATABASE_URL').url!;
    const origin = `https://pg-${process.pid}.test`;
    const chains = [{ chainId: SCOPE, rpcUrl: anvil.url }];
    const first = await startWallet({ databaseUrl, chains, autoApprove: true });
    let created: unknown;
    try {
      created = await dapp(first, origin).client.createSession({
        optionalScopes: { [SCOPE]: { methods: [], notifications: [] } },
      });
    } finally {
      await first.close();
    }
    const second = await startWallet({ databaseUrl, chains });
    try {
      const { client } = dapp(second, origin);
      assert.deepEqual(await client.getSession(), created);
      await client.revokeSession({});
    } finally {
      await second.close();
    }
  });

  test('a session survives a wallet restart (SQLite in the data directory)', async () => {
    const restartDir = tempDir();
    try {
      const first = await startWallet({
        dataDir: restartDir.path,
        chains: [{ chainId: SCOPE, rpcUrl: anvil.url }],
        autoApprove: true,
      });
      const created = await dapp(first, 'https://restart.test').client.createSession({
        optionalScopes: { [SCOPE]: { methods: [], notifications: [] } },
      });
      await first.close();
      const second = await startWallet({
        dataDir: restartDir.path,
        chains: [{ chainId: SCOPE, rpcUrl: anvil.url }],
      });
      try {
        const { client } = dapp(second, 'https://restart.test');
        assert.deepEqual(await client.getSession(), created);
        assert.match(
          String(
            await client.invokeMethod({
              scope: SCOPE,
              request: { method: 'eth_chainId', params: [] } as never,
            }),
          ),
          /^0x7a69$/,
        );
      } finally {
        await second.close();
      }
    } finally {
      restartDir.cleanup();
    }
  });
});

async function api(wallet: Wallet, path: string, init: RequestInit = {}) {
  const [base, fragment] = wallet.approvalUrl.split('/approve#token=');
  const response = await fetch(`${base}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${fragment}`, 'content-type': 'application/json' },
  });
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

/** Waits for the wallet to list a pending approval (bounded by the test runner's timeout). */
async function waitForApproval(wallet: Wallet): Promise<{ id: string; origin: string }> {
  for (;;) {
    const list = (await api(wallet, '/api/approvals')) as { id: string; origin: string }[];
    if (list.length > 0) return list[0];
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function answer(wallet: Wallet, id: string, decision: unknown) {
  await api(wallet, `/api/approvals/${id}`, { method: 'POST', body: JSON.stringify(decision) });
}
