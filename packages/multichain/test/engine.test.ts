import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  createMemorySessionStore,
  createMultichainEngine,
  MultichainRpcError,
  REQUEST_SCOPES_METHOD,
  type SupportedScopes,
  walletCreateSession,
} from '../src/index.ts';
import {
  ACCOUNT_A,
  ACCOUNT_B,
  connectDapp,
  createTestWallet,
  EIP155_METHODS,
  grantedScope,
  nextNotification,
  SUPPORTED,
  sessionChangedWith,
} from './helpers.ts';

async function rpcError(promise: Promise<unknown>): Promise<MultichainRpcError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof MultichainRpcError, `expected a MultichainRpcError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}

const eip155Scope = { methods: ['eth_blockNumber'], notifications: ['eth_subscription'] };

describe('wallet_createSession', () => {
  test('returns sessionScopes filled with every supported method, notification and the approved CAIP-10 accounts', async () => {
    const { engine, approvals } = createTestWallet();
    const { client } = connectDapp(engine);
    const session = await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    assert.deepEqual(session, {
      sessionScopes: { 'eip155:1': grantedScope('eip155:1', ACCOUNT_A, ACCOUNT_B) },
      sessionProperties: {},
    });
    assert.equal(approvals[0].origin, 'https://dapp.example');
    assert.deepEqual(Object.keys(approvals[0].scopes), ['eip155:1']);
  });

  test('flattens references, merges required into optional, and drops invalid and unsupported scopes', async () => {
    const { engine, approvals } = createTestWallet();
    const { client } = connectDapp(engine);
    const session = await client.createSession({
      requiredScopes: {
        eip155: { references: ['1', '999'], methods: ['eth_blockNumber'], notifications: [] },
      },
      optionalScopes: {
        'eip155:10': { methods: [], notifications: [] },
        'eip155:5': { references: ['5'], methods: [], notifications: [] },
        wallet: { methods: [], notifications: [] },
        foobar: { methods: [], notifications: [] },
      },
    });
    assert.deepEqual(Object.keys(session.sessionScopes).sort(), ['eip155:1', 'eip155:10', 'wallet']);
    assert.deepEqual(session.sessionScopes.wallet.accounts, []);
    assert.deepEqual(Object.keys(approvals[0].scopes).sort(), ['eip155:1', 'eip155:10', 'wallet']);
  });

  test('unsupported methods and notifications are dropped from the grant; a scope asking only for unsupported ones is dropped', async () => {
    const { engine, approvals } = createTestWallet();
    const { client } = connectDapp(engine);
    const session = await client.createSession({
      optionalScopes: {
        'eip155:1': { methods: ['eth_blockNumber', 'eth_mineGold'], notifications: ['eth_rumour'] },
        'eip155:10': { methods: ['not_supported'], notifications: ['eth_rumour'] },
      },
    });
    assert.deepEqual(Object.keys(session.sessionScopes), ['eip155:1']);
    assert.deepEqual(session.sessionScopes['eip155:1'].methods, EIP155_METHODS, 'what the wallet supports');
    assert.deepEqual(session.sessionScopes['eip155:1'].notifications, ['eth_subscription']);
    assert.deepEqual(Object.keys(approvals[0].scopes), ['eip155:1'], 'the person is shown only eip155:1');
    const error = await rpcError(
      client.invokeMethod({ scope: 'eip155:10', request: { method: 'not_supported' } }),
    );
    assert.equal(error.code, 4100);
  });

  test('a request whose scopes are all unsupported (chains, or every method and notification) is 5100', async () => {
    const { engine, approvals } = createTestWallet();
    const { client } = connectDapp(engine);
    const error = await rpcError(
      client.createSession({
        requiredScopes: { 'eip155:1': { methods: ['not_supported'], notifications: [] } },
        optionalScopes: {
          'eip155:10': { methods: [], notifications: ['eth_rumour'] },
          'eip155:999': { methods: ['eth_blockNumber'], notifications: [] },
        },
      }),
    );
    assert.equal(error.code, 5100);
    assert.equal(approvals.length, 0, 'the person is not asked');
    assert.deepEqual(await client.getSession(), { sessionScopes: {} });
  });

  test('what is supported is read from the getSupportedScopes hook at every request', async () => {
    let supported: SupportedScopes = SUPPORTED;
    const { engine } = createTestWallet({ supported: () => supported });
    const { client } = connectDapp(engine);
    const scope = { methods: ['eth_blockNumber'], notifications: [] };
    await client.createSession({ optionalScopes: { 'eip155:10': scope } });
    supported = { ...SUPPORTED, 'eip155:10': { methods: ['eth_chainId'], notifications: [] } };
    assert.equal(
      (await rpcError(client.createSession({ optionalScopes: { 'eip155:10': scope } }))).code,
      5100,
    );
    const { 'eip155:10': _removed, ...withoutChain } = SUPPORTED;
    supported = withoutChain;
    const empty = { methods: [], notifications: [] };
    assert.equal(
      (await rpcError(client.createSession({ optionalScopes: { 'eip155:10': empty } }))).code,
      5100,
    );
  });

  test('preselects requested accounts the wallet holds, compared case-insensitively, and ignores others', async () => {
    const { engine, approvals, setApprove } = createTestWallet();
    setApprove((request) => ({ approved: true, accounts: request.preselected }));
    const { client } = connectDapp(engine);
    const session = await client.createSession({
      optionalScopes: {
        'eip155:1': {
          ...eip155Scope,
          accounts: [
            `eip155:1:${ACCOUNT_B.toLowerCase()}`,
            'eip155:1:0x0000000000000000000000000000000000000001',
          ],
        },
      },
    });
    assert.deepEqual(approvals[0].preselected, { eip155: [ACCOUNT_B] });
    assert.deepEqual(session.sessionScopes['eip155:1'].accounts, [`eip155:1:${ACCOUNT_B}`]);
  });

  test('the person picks the scopes and accounts granted', async () => {
    const { engine, setApprove } = createTestWallet();
    setApprove(() => ({ approved: true, scopes: ['eip155:10'], accounts: { eip155: [ACCOUNT_A] } }));
    const { client } = connectDapp(engine);
    const session = await client.createSession({
      optionalScopes: { 'eip155:1': eip155Scope, 'eip155:10': eip155Scope },
    });
    assert.deepEqual(Object.keys(session.sessionScopes), ['eip155:10']);
    assert.deepEqual(session.sessionScopes['eip155:10'].accounts, [`eip155:10:${ACCOUNT_A}`]);
  });

  test('wallet:eip155 carries the approved eip155 accounts', async () => {
    const { engine, setApprove } = createTestWallet();
    setApprove(() => ({ approved: true, accounts: { eip155: [ACCOUNT_B] } }));
    const { client } = connectDapp(engine);
    const session = await client.createSession({
      optionalScopes: { 'wallet:eip155': { methods: [], notifications: [] } },
    });
    assert.deepEqual(session.sessionScopes['wallet:eip155'].accounts, [`wallet:eip155:${ACCOUNT_B}`]);
  });

  test('`wallet` carries no accounts, `wallet:eip155` the approved eip155 ones, side by side with a chain', async () => {
    const { engine, setApprove } = createTestWallet();
    setApprove(() => ({ approved: true, accounts: { eip155: [ACCOUNT_A] } }));
    const { client } = connectDapp(engine);
    const session = await client.createSession({
      optionalScopes: {
        wallet: { methods: [], notifications: [] },
        'wallet:eip155': { methods: [], notifications: [] },
        'eip155:1': eip155Scope,
      },
    });
    assert.deepEqual(session.sessionScopes, {
      wallet: grantedScope('wallet'),
      'wallet:eip155': grantedScope('wallet:eip155', ACCOUNT_A),
      'eip155:1': grantedScope('eip155:1', ACCOUNT_A),
    });
  });

  test('every approved scope vanishing while the person decides is 5100 and stores no session', async () => {
    let supported: SupportedScopes = SUPPORTED;
    const store = createMemorySessionStore();
    const { engine, setApprove } = createTestWallet({ store, supported: () => supported });
    const { client } = connectDapp(engine);
    setApprove((request) => {
      supported = { wallet: SUPPORTED.wallet };
      return { approved: true, scopes: ['eip155:1', 'eip155:10'], accounts: request.accounts };
    });
    const error = await rpcError(
      client.createSession({ optionalScopes: { 'eip155:1': eip155Scope, 'eip155:10': eip155Scope } }),
    );
    assert.equal(error.code, 5100);
    assert.equal(await store.get('https://dapp.example'), undefined, 'no session is stored');
    assert.deepEqual(await client.getSession(), { sessionScopes: {} });
  });

  test('the approval is given the signal of the asking connection: closing it aborts the approval', async () => {
    let asked!: (signal: AbortSignal) => void;
    const signalGiven = new Promise<AbortSignal>((resolve) => {
      asked = resolve;
    });
    const engine = createMultichainEngine({
      getSupportedScopes: () => SUPPORTED,
      getAccounts: () => [ACCOUNT_A],
      approve: (_request, { signal }) =>
        new Promise((resolve) => {
          asked(signal);
          signal.addEventListener('abort', () => resolve({ approved: false }), { once: true });
        }),
      invoke: async () => null,
    });
    const { client } = connectDapp(engine);
    const pending = client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    pending.catch(() => {});
    const signal = await signalGiven;
    assert.equal(signal.aborted, false);
    await client.close();
    assert.equal(signal.aborted, true, 'the dapp left: the approval is told');
    assert.deepEqual(await engine.getSession('https://dapp.example'), undefined);
  });

  test('what was dropped as unsupported is logged, one line each', async () => {
    const lines: string[] = [];
    const engine = createMultichainEngine({
      getSupportedScopes: () => SUPPORTED,
      getAccounts: () => [ACCOUNT_A],
      approve: async (request) => ({ approved: true, accounts: request.accounts }),
      invoke: async () => null,
      onLog: (line) => lines.push(line),
    });
    const { client } = connectDapp(engine);
    await client.createSession({
      optionalScopes: {
        'eip155:999': eip155Scope,
        'eip155:1': {
          methods: ['eth_blockNumber', 'eth_sendRawTransaction'],
          notifications: ['chainChanged'],
        },
      },
    });
    assert.ok(
      lines.some((line) =>
        /^multichain: https:\/\/dapp\.example asked for eip155:999: dropped, .+/.test(line),
      ),
      lines.join('\n'),
    );
    assert.ok(
      lines.includes(
        'multichain: https://dapp.example asked for unsupported eth_sendRawTransaction, chainChanged on eip155:1',
      ),
      lines.join('\n'),
    );
  });

  test('the person is offered the accounts of each namespace once, and none for `wallet`', async () => {
    const { engine, approvals } = createTestWallet();
    const { client } = connectDapp(engine);
    await client.createSession({
      optionalScopes: {
        wallet: { methods: [], notifications: [] },
        'eip155:1': { ...eip155Scope, accounts: [`eip155:1:${ACCOUNT_B.toLowerCase()}`] },
        'eip155:10': eip155Scope,
      },
    });
    assert.deepEqual(approvals[0].accounts, { eip155: [ACCOUNT_A, ACCOUNT_B] });
    assert.deepEqual(approvals[0].preselected, { eip155: [ACCOUNT_B] });
  });

  test('rejection by the person is 4001 and creates no session', async () => {
    const { engine, setApprove } = createTestWallet();
    setApprove(() => ({ approved: false }));
    const { client } = connectDapp(engine);
    const error = await rpcError(client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } }));
    assert.equal(error.code, 4001);
    assert.match(error.message, /User rejected the request\./);
    assert.deepEqual(await client.getSession(), { sessionScopes: {} });
  });

  test('nothing supported left is 5100', async () => {
    const { engine, approvals } = createTestWallet();
    const { client } = connectDapp(engine);
    const error = await rpcError(
      client.createSession({
        optionalScopes: { 'eip155:999': eip155Scope, 'eip155:1': { methods: [] } as never },
      }),
    );
    assert.equal(error.code, 5100);
    assert.match(error.message, /Requested scopes are not supported/);
    assert.equal(approvals.length, 0, 'the person is not asked');
  });

  test('empty sessionProperties is 5302; unknown session properties are dropped', async () => {
    const { engine } = createTestWallet();
    const { client } = connectDapp(engine);
    assert.equal(
      (
        await rpcError(
          client.createSession({ optionalScopes: { 'eip155:1': eip155Scope }, sessionProperties: {} }),
        )
      ).code,
      5302,
    );
    const session = await client.createSession({
      optionalScopes: { 'eip155:1': eip155Scope },
      sessionProperties: { solana_accountChanged_notifications: true, unknown: 1 },
    });
    assert.deepEqual(session.sessionProperties, { solana_accountChanged_notifications: true });
  });

  test('malformed params are -32602 with the failing paths in data', async () => {
    const { engine } = createTestWallet();
    const { client } = connectDapp(engine);
    const error = await rpcError(
      client.createSession({ optionalScopes: { 'eip155:1': { methods: 'x', notifications: [] } } } as never),
    );
    assert.equal(error.code, -32602);
    assert.deepEqual(error.data, [
      { path: ['optionalScopes', 'eip155:1', 'methods'], message: 'must be an array of strings' },
    ]);
  });

  test('a new createSession replaces the origin session', async () => {
    const { engine } = createTestWallet();
    const { client } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    await client.createSession({ optionalScopes: { 'eip155:10': eip155Scope } });
    assert.deepEqual(Object.keys((await client.getSession()).sessionScopes), ['eip155:10']);
  });
});

describe('wallet_getSession', () => {
  test('without a session it is { sessionScopes: {} }, never an error', async () => {
    const { engine } = createTestWallet();
    assert.deepEqual(await connectDapp(engine).client.getSession(), { sessionScopes: {} });
  });
  test('sessions are per origin', async () => {
    const { engine } = createTestWallet();
    await connectDapp(engine, 'https://a.example').client.createSession({
      optionalScopes: { 'eip155:1': eip155Scope },
    });
    assert.deepEqual(await connectDapp(engine, 'https://b.example').client.getSession(), {
      sessionScopes: {},
    });
    const other = await connectDapp(engine, 'https://a.example').client.getSession();
    assert.deepEqual(Object.keys(other.sessionScopes), ['eip155:1']);
  });
});

describe('wallet_invokeMethod', () => {
  test('returns the raw result of an authorised method with the session accounts in context', async () => {
    const { engine, invocations, setApprove } = createTestWallet();
    setApprove(() => ({ approved: true, accounts: { eip155: [ACCOUNT_B] } }));
    const { client } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    assert.equal(
      await client.invokeMethod({ scope: 'eip155:1', request: { method: 'eth_blockNumber', params: [] } }),
      '0x10',
    );
    assert.deepEqual(await client.invokeMethod({ scope: 'eip155:1', request: { method: 'eth_accounts' } }), [
      ACCOUNT_B,
    ]);
    assert.deepEqual(invocations[0].context.accounts, [ACCOUNT_B]);
  });
  test('a scope not in the session or a method not authorised is 4100', async () => {
    const { engine } = createTestWallet();
    const { client } = connectDapp(engine);
    const noSession = await rpcError(
      client.invokeMethod({ scope: 'eip155:1', request: { method: 'eth_blockNumber' } }),
    );
    assert.equal(noSession.code, 4100);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    const otherScope = await rpcError(
      client.invokeMethod({ scope: 'eip155:10', request: { method: 'eth_blockNumber' } }),
    );
    assert.equal(otherScope.code, 4100);
    const otherMethod = await rpcError(
      client.invokeMethod({ scope: 'eip155:1', request: { method: 'eth_sign' } }),
    );
    assert.equal(otherMethod.code, 4100);
    assert.match(otherMethod.message, /has not been authorized by the user/);
  });
  test("the invoked method's error is the top-level error", async () => {
    const { engine } = createTestWallet();
    const { client } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    const error = await rpcError(
      client.invokeMethod({ scope: 'eip155:1', request: { method: 'personal_sign', params: [] } }),
    );
    assert.equal(error.code, -32000);
    assert.deepEqual(error.data, { why: 'test' });
  });
  test('malformed params are -32602', async () => {
    const { engine } = createTestWallet();
    const { client } = connectDapp(engine);
    const error = await rpcError(client.invokeMethod({ scope: 'eip155:1' } as never));
    assert.equal(error.code, -32602);
  });
});

describe('other methods', () => {
  test('a method other than the four is -32601', async () => {
    const { engine } = createTestWallet();
    const connection = engine.connect('https://dapp.example', () => {});
    const response = await connection.handle({ jsonrpc: '2.0', id: 7, method: 'eth_requestAccounts' });
    assert.deepEqual(response, {
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32601, message: 'The method does not exist / is not available.' },
    });
  });
  test('a message that is not a JSON-RPC request is -32600', async () => {
    const { engine } = createTestWallet();
    const response = await engine.connect('https://dapp.example', () => {}).handle({ id: 1, method: 5 });
    assert.equal(response && 'error' in response ? response.error.code : 0, -32600);
  });
});

describe('portico_requestScopes (one permission behind every interface)', () => {
  test('adds the approved scopes to the session, keeps the others, and tells the other connections', async () => {
    const { engine, setApprove } = createTestWallet();
    const { client } = connectDapp(engine);
    const other = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    await other.client.getSession();
    const changed = nextNotification(other.client, (n) => n.method === 'wallet_sessionChanged');
    setApprove(() => ({ approved: true, accounts: { eip155: [ACCOUNT_B] } }));
    const bridge = engine.connect('https://dapp.example', () => {});
    const response = await bridge.handle({
      jsonrpc: '2.0',
      id: 7,
      method: REQUEST_SCOPES_METHOD,
      params: { optionalScopes: { 'eip155:10': eip155Scope } },
    });
    const expected = {
      'eip155:1': grantedScope('eip155:1', ACCOUNT_A, ACCOUNT_B),
      'eip155:10': grantedScope('eip155:10', ACCOUNT_B),
    };
    assert.deepEqual(response, {
      jsonrpc: '2.0',
      id: 7,
      result: { sessionScopes: expected, sessionProperties: {} },
    });
    assert.deepEqual((await changed).params, { sessionScopes: expected });
    assert.deepEqual((await client.getSession()).sessionScopes, expected);
  });
  test('asking again for a scope already granted replaces only that scope; a rejection changes nothing', async () => {
    const { engine, setApprove } = createTestWallet();
    const { client } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope, 'eip155:10': eip155Scope } });
    const bridge = engine.connect('https://dapp.example', () => {});
    const ask = (id: number) =>
      bridge.handle({
        jsonrpc: '2.0',
        id,
        method: REQUEST_SCOPES_METHOD,
        params: { optionalScopes: { 'eip155:10': eip155Scope } },
      });
    setApprove(() => ({ approved: false }));
    const rejected = await ask(1);
    assert.equal(rejected && 'error' in rejected ? rejected.error.code : 0, 4001);
    setApprove(() => ({ approved: true, accounts: { eip155: [ACCOUNT_A] } }));
    await ask(2);
    assert.deepEqual((await client.getSession()).sessionScopes, {
      'eip155:1': grantedScope('eip155:1', ACCOUNT_A, ACCOUNT_B),
      'eip155:10': grantedScope('eip155:10', ACCOUNT_A),
    });
  });
});

describe('walletCreateSession with only the hooks it needs', () => {
  const SOLANA = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
  const hooks = (supported: SupportedScopes = SUPPORTED) => {
    const stored: unknown[] = [];
    return {
      stored,
      getSupportedScopes: () => supported,
      getAccounts: (namespace: string) => (namespace === 'eip155' ? [ACCOUNT_A, ACCOUNT_B] : []),
      approve: async (request: { accounts: Record<string, string[]> }) => ({
        approved: true,
        accounts: request.accounts,
      }),
      setSession: async (_origin: string, session: unknown) => {
        stored.push(session);
      },
      endSessionWork: () => {},
    };
  };

  test('without a log, what is dropped is dropped quietly', async () => {
    const session = await walletCreateSession(
      {
        origin: 'https://quiet.example',
        params: {
          optionalScopes: {
            'eip155:999': eip155Scope,
            'eip155:1': { methods: ['eth_blockNumber', 'eth_sendRawTransaction'], notifications: [] },
          },
        },
        knownSessionProperties: [],
      },
      hooks(),
    );
    assert.deepEqual(Object.keys(session.sessionScopes), ['eip155:1']);
  });

  test('merging without a getSession hook keeps nothing and stores what was approved', async () => {
    const h = hooks();
    const session = await walletCreateSession(
      {
        origin: 'https://merge.example',
        params: { optionalScopes: { 'eip155:1': eip155Scope } },
        knownSessionProperties: [],
        merge: true,
      },
      h,
    );
    assert.deepEqual(Object.keys(session.sessionScopes), ['eip155:1']);
    assert.deepEqual(h.stored, [session]);
  });

  test('an account requested in another namespace is not preselected, even with the same spelling', async () => {
    let offered: { preselected: Record<string, string[]> } | undefined;
    const h = hooks({ ...SUPPORTED, [SOLANA]: { methods: ['signMessage'], notifications: [] } });
    await walletCreateSession(
      {
        origin: 'https://two.example',
        params: {
          optionalScopes: {
            'eip155:1': eip155Scope,
            [SOLANA]: { methods: ['signMessage'], notifications: [], accounts: [`${SOLANA}:${ACCOUNT_A}`] },
          },
        },
        knownSessionProperties: [],
      },
      {
        ...h,
        approve: async (request) => {
          offered = request;
          return { approved: true, accounts: request.accounts };
        },
      },
    );
    assert.deepEqual(offered?.preselected, { eip155: [], solana: [] });
  });
});

describe('portico_requestScopes without an earlier session', () => {
  test('the first request keeps nothing and stores what was approved, with its session properties', async () => {
    const { engine, approvals } = createTestWallet();
    const bridge = engine.connect('https://dapp.example', () => {});
    const reply = await bridge.handle({
      jsonrpc: '2.0',
      id: 1,
      method: REQUEST_SCOPES_METHOD,
      params: { optionalScopes: { 'eip155:1': eip155Scope } },
    });
    assert.ok(reply && 'result' in reply, JSON.stringify(reply));
    assert.deepEqual(approvals[0].keeps, []);
    assert.deepEqual(await engine.getSession('https://dapp.example'), {
      sessionScopes: { 'eip155:1': grantedScope('eip155:1', ACCOUNT_A, ACCOUNT_B) },
      sessionProperties: {},
    });
  });

  test('a later request is told which scopes stay (not the one asked again) and keeps the earlier session properties', async () => {
    const { engine, approvals } = createTestWallet();
    const { client } = connectDapp(engine);
    await client.createSession({
      optionalScopes: { 'eip155:1': eip155Scope, 'eip155:10': eip155Scope },
      sessionProperties: { solana_accountChanged_notifications: true },
    });
    const bridge = engine.connect('https://dapp.example', () => {});
    await bridge.handle({
      jsonrpc: '2.0',
      id: 1,
      method: REQUEST_SCOPES_METHOD,
      params: { optionalScopes: { 'eip155:10': eip155Scope } },
    });
    assert.deepEqual(approvals[1].keeps, ['eip155:1']);
    assert.deepEqual(await engine.getSession('https://dapp.example'), {
      sessionScopes: {
        'eip155:1': grantedScope('eip155:1', ACCOUNT_A, ACCOUNT_B),
        'eip155:10': grantedScope('eip155:10', ACCOUNT_A, ACCOUNT_B),
      },
      sessionProperties: { solana_accountChanged_notifications: true },
    });
  });
});

describe('wallet_revokeSession and wallet_sessionChanged', () => {
  test('revoke returns true, even without a session, and sends { sessionScopes: {} }', async () => {
    const { engine } = createTestWallet();
    const { client, notifications } = connectDapp(engine);
    assert.equal(await client.revokeSession(), true);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    notifications.length = 0;
    assert.equal(await client.revokeSession(), true);
    assert.deepEqual(notifications, [
      { jsonrpc: '2.0', method: 'wallet_sessionChanged', params: { sessionScopes: {} } },
    ]);
    assert.deepEqual(await client.getSession(), { sessionScopes: {} });
  });
  test('revoking some scopes keeps the rest and sends the full remaining scopes', async () => {
    const { engine } = createTestWallet();
    const { client, notifications } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope, 'eip155:10': eip155Scope } });
    await client.revokeSession({ scopes: ['eip155:1'] });
    const last = notifications.at(-1);
    assert.equal(last?.method, 'wallet_sessionChanged');
    assert.deepEqual(Object.keys(last.params.sessionScopes as object), ['eip155:10']);
  });
  test('an account removed by the wallet sends the full updated scopes to every connection of the origin', async () => {
    const { engine } = createTestWallet();
    const first = connectDapp(engine);
    const second = connectDapp(engine);
    await first.client.createSession({
      optionalScopes: { 'eip155:1': eip155Scope, 'wallet:eip155': { methods: [], notifications: [] } },
    });
    await second.client.getSession();
    const changed = nextNotification(second.client, (n) => n.method === 'wallet_sessionChanged');
    await engine.removeAccount('eip155', ACCOUNT_A.toLowerCase());
    const { params } = await changed;
    assert.deepEqual(params, {
      sessionScopes: {
        'eip155:1': grantedScope('eip155:1', ACCOUNT_B),
        'wallet:eip155': grantedScope('wallet:eip155', ACCOUNT_B),
      },
    });
    assert.deepEqual(first.notifications.at(-1), second.notifications.at(-1));
    assert.deepEqual(
      first.client.session?.sessionScopes,
      (params as { sessionScopes: object }).sessionScopes,
    );
  });
  test('an account added by the wallet sends the full updated scopes', async () => {
    const { engine, setApprove } = createTestWallet();
    setApprove(() => ({ approved: true, accounts: { eip155: [ACCOUNT_A] } }));
    const { client, notifications } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    await engine.addAccount('https://dapp.example', 'eip155', ACCOUNT_B);
    assert.deepEqual(
      notifications.at(-1),
      sessionChangedWith({ 'eip155:1': grantedScope('eip155:1', ACCOUNT_A, ACCOUNT_B) }),
    );
  });
  test('a chain removed by the wallet disappears from the scopes; removing the last one ends the session', async () => {
    const { engine } = createTestWallet();
    const { client, notifications } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope, 'eip155:10': eip155Scope } });
    await engine.removeScope('eip155:1');
    assert.deepEqual(Object.keys((notifications.at(-1)!.params as { sessionScopes: object }).sessionScopes), [
      'eip155:10',
    ]);
    await engine.removeScope('eip155:10');
    assert.deepEqual(notifications.at(-1)?.params, { sessionScopes: {} });
    assert.deepEqual(await client.getSession(), { sessionScopes: {} });
  });
  test('reconcile drops scopes the wallet no longer supports and accounts it no longer holds', async () => {
    const store = createMemorySessionStore();
    await store.set('https://old.example', {
      sessionScopes: {
        'eip155:1': {
          methods: [],
          notifications: [],
          accounts: [`eip155:1:${ACCOUNT_A}`, 'eip155:1:0x00000000000000000000000000000000000000aa'],
        },
        'eip155:999': { methods: [], notifications: [], accounts: [] },
      },
      sessionProperties: {},
    });
    await store.set('https://gone.example', {
      sessionScopes: { 'eip155:999': { methods: [], notifications: [], accounts: [] } },
    });
    const { engine } = createTestWallet({ store });
    await engine.reconcile();
    assert.deepEqual((await engine.getSession('https://old.example'))?.sessionScopes, {
      'eip155:1': { methods: [], notifications: [], accounts: [`eip155:1:${ACCOUNT_A}`] },
    });
    assert.equal(await engine.getSession('https://gone.example'), undefined);
  });

  test("a createSession that replaces the session tells the origin's other connections, not the caller or other origins", async () => {
    const { engine } = createTestWallet();
    const first = connectDapp(engine);
    const second = connectDapp(engine);
    const elsewhere = connectDapp(engine, 'https://other.example');
    await Promise.all([second.client.getSession(), elsewhere.client.getSession()]);
    const created = nextNotification(second.client, (n) => n.method === 'wallet_sessionChanged');
    const session = await first.client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    assert.deepEqual((await created).params, { sessionScopes: session.sessionScopes });
    const replaced = nextNotification(second.client, (n) => n.method === 'wallet_sessionChanged');
    const replacement = await first.client.createSession({ optionalScopes: { 'eip155:10': eip155Scope } });
    assert.deepEqual((await replaced).params, { sessionScopes: replacement.sessionScopes });
    assert.deepEqual(Object.keys(second.client.session?.sessionScopes ?? {}), ['eip155:10']);
    assert.equal(
      await second.client.invokeMethod({ scope: 'eip155:10', request: { method: 'eth_blockNumber' } }),
      '0x10',
    );
    await first.client.createSession({ optionalScopes: { 'eip155:10': eip155Scope } });
    await second.client.getSession();
    assert.equal(second.notifications.length, 2, 'an identical replacement changes nothing to tell');
    assert.deepEqual(first.notifications, [], 'the caller has the result');
    assert.deepEqual(elsewhere.notifications, []);
  });

  test('replacing the accounts of a namespace updates every affected origin, each of its connections', async () => {
    let held = [ACCOUNT_A, ACCOUNT_B];
    const { engine, setApprove } = createTestWallet({ accounts: () => held });
    const a1 = connectDapp(engine, 'https://a.example');
    const a2 = connectDapp(engine, 'https://a.example');
    const b = connectDapp(engine, 'https://b.example');
    const readOnly = connectDapp(engine, 'https://read-only.example');
    await a1.client.createSession({
      optionalScopes: { 'eip155:1': eip155Scope, 'wallet:eip155': { methods: [], notifications: [] } },
    });
    await a2.client.getSession();
    setApprove(() => ({ approved: true, accounts: { eip155: [ACCOUNT_A] } }));
    await b.client.createSession({ optionalScopes: { 'eip155:10': eip155Scope } });
    setApprove(() => ({ approved: true, accounts: {} }));
    await readOnly.client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    for (const dapp of [a1, a2, b, readOnly]) dapp.notifications.length = 0;

    const NEW_ACCOUNT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
    held = [ACCOUNT_B, NEW_ACCOUNT];
    await engine.replaceAccounts('eip155', held);
    const expected = sessionChangedWith({
      'eip155:1': grantedScope('eip155:1', ACCOUNT_B),
      'wallet:eip155': grantedScope('wallet:eip155', ACCOUNT_B),
    });
    assert.deepEqual(
      a1.notifications,
      [expected],
      'the replaced account is gone, the new one is not granted',
    );
    assert.deepEqual(a2.notifications, [expected]);
    assert.deepEqual(
      b.notifications,
      [sessionChangedWith({})],
      'a session whose last account went ends, as MetaMask revokes it',
    );
    assert.equal(await engine.getSession('https://b.example'), undefined);
    assert.deepEqual(readOnly.notifications, [], 'a session without accounts is not affected');
    assert.deepEqual(
      await a2.client.invokeMethod({ scope: 'eip155:1', request: { method: 'eth_accounts' } }),
      [ACCOUNT_B],
    );
  });

  test('a session of wallet scopes only is not ended by removing one of its accounts', async () => {
    const { engine } = createTestWallet();
    const { client, notifications } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'wallet:eip155': { methods: [], notifications: [] } } });
    await engine.removeAccount('eip155', ACCOUNT_A);
    assert.deepEqual(
      notifications.at(-1),
      sessionChangedWith({ 'wallet:eip155': grantedScope('wallet:eip155', ACCOUNT_B) }),
    );
  });

  test('removing a chain that leaves only wallet scopes ends the session', async () => {
    const { engine } = createTestWallet();
    const { client, notifications } = connectDapp(engine);
    await client.createSession({
      optionalScopes: { 'eip155:1': eip155Scope, 'wallet:eip155': { methods: [], notifications: [] } },
    });
    await engine.removeScope('eip155:1');
    assert.deepEqual(notifications.at(-1)?.params, { sessionScopes: {} });
    assert.deepEqual(await client.getSession(), { sessionScopes: {} });
  });

  test('what changes while the person decides counts: a removed chain or account is not granted', async () => {
    let held = [ACCOUNT_A, ACCOUNT_B];
    let supported: SupportedScopes = SUPPORTED;
    const { engine, setApprove } = createTestWallet({ accounts: () => held, supported: () => supported });
    const { client } = connectDapp(engine);
    setApprove((request) => {
      held = [ACCOUNT_B];
      const { 'eip155:10': _removed, ...rest } = SUPPORTED;
      supported = rest;
      return { approved: true, accounts: request.accounts };
    });
    const session = await client.createSession({
      optionalScopes: { 'eip155:1': eip155Scope, 'eip155:10': eip155Scope },
    });
    assert.deepEqual(Object.keys(session.sessionScopes), ['eip155:1']);
    assert.deepEqual(session.sessionScopes['eip155:1'].accounts, [`eip155:1:${ACCOUNT_B}`]);
  });

  test('other origins get no notification', async () => {
    const { engine } = createTestWallet();
    const a = connectDapp(engine, 'https://a.example');
    const b = connectDapp(engine, 'https://b.example');
    await b.client.getSession();
    await a.client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    await a.client.revokeSession();
    assert.equal(b.notifications.length, 0);
  });
});

describe('wallet_notify', () => {
  test('a subscription made through wallet_invokeMethod is relayed as wallet_notify while authorised', async () => {
    const { engine, invocations } = createTestWallet();
    const { client, notifications } = connectDapp(engine);
    const otherTab = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    await otherTab.client.getSession();
    const id = await client.invokeMethod({
      scope: 'eip155:1',
      request: { method: 'eth_subscribe', params: ['newHeads'] },
    });
    const { context } = invocations[0];
    const notified = nextNotification(client, (n) => n.method === 'wallet_notify');
    context.notify({
      method: 'eth_subscription',
      params: { subscription: id as string, result: { number: '0x1' } },
    });
    assert.deepEqual(await notified, {
      jsonrpc: '2.0',
      method: 'wallet_notify',
      params: {
        scope: 'eip155:1',
        notification: {
          method: 'eth_subscription',
          params: { subscription: '0xsub1', result: { number: '0x1' } },
        },
      },
    });
    assert.deepEqual(
      otherTab.notifications.filter((n) => n.method === 'wallet_notify'),
      [],
      'only the subscribing connection gets its notifications',
    );
    assert.equal(context.signal.aborted, false);
    await client.revokeSession();
    assert.equal(context.signal.aborted, true, 'revoking ends the subscription work');
    const before = notifications.length;
    context.notify({ method: 'eth_subscription', params: { subscription: '0xsub1', result: {} } });
    await client.getSession();
    assert.equal(notifications.length, before, 'nothing is relayed after the revoke');
  });
  test('closing the connection aborts its subscription work', async () => {
    const { engine, invocations } = createTestWallet();
    const { client } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    await client.invokeMethod({
      scope: 'eip155:1',
      request: { method: 'eth_subscribe', params: ['newHeads'] },
    });
    await client.close();
    assert.equal(invocations[0].context.signal.aborted, true);
  });
});

describe('names from outside never reach Object.prototype', () => {
  const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];

  test('wallet_invokeMethod with a method or scope named after an Object.prototype member is 4100', async () => {
    const { engine, invocations } = createTestWallet();
    const { client } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    for (const name of PROTOTYPE_NAMES) {
      const method = await rpcError(client.invokeMethod({ scope: 'eip155:1', request: { method: name } }));
      assert.equal(method.code, 4100, `method ${name}`);
      const scope = await rpcError(
        client.invokeMethod({ scope: name, request: { method: 'eth_blockNumber' } }),
      );
      assert.equal(scope.code, 4100, `scope ${name}`);
    }
    assert.equal(invocations.length, 0, 'nothing reached the wallet');
    assert.equal(
      await client.invokeMethod({ scope: 'eip155:1', request: { method: 'eth_blockNumber' } }),
      '0x10',
      'the engine keeps serving',
    );
  });

  test('a scope key __proto__ is dropped like any invalid key: alone it is 5100, beside a valid scope it is ignored', async () => {
    const { engine } = createTestWallet();
    const connection = engine.connect('https://dapp.example', () => {});
    // JSON.parse makes __proto__ an own member, as it arrives over a transport.
    const alone = JSON.parse(
      '{"optionalScopes":{"__proto__":{"methods":["eth_blockNumber"],"notifications":[]}}}',
    );
    const createSession = (id: number, params: unknown) =>
      connection.handle({ jsonrpc: '2.0', id, method: 'wallet_createSession', params });
    assert.deepEqual(await createSession(1, alone), {
      jsonrpc: '2.0',
      id: 1,
      error: { code: 5100, message: 'Requested scopes are not supported' },
    });
    const beside = JSON.parse(
      '{"optionalScopes":{"__proto__":{"methods":[],"notifications":[]},"eip155:1":{"methods":[],"notifications":[]}},"sessionProperties":{"__proto__":{"x":1},"solana_accountChanged_notifications":true}}',
    );
    const created = await createSession(2, beside);
    assert.ok(created && 'result' in created, JSON.stringify(created));
    const session = created.result as { sessionScopes: object; sessionProperties: object };
    assert.deepEqual(Object.keys(session.sessionScopes), ['eip155:1']);
    assert.deepEqual(session.sessionProperties, { solana_accountChanged_notifications: true });
    assert.equal(Object.getPrototypeOf(session.sessionScopes), Object.prototype);
    assert.equal(({} as { methods?: unknown }).methods, undefined, 'Object.prototype is untouched');
  });

  test('a JSON-RPC method named after an Object.prototype member is -32601', async () => {
    const { engine } = createTestWallet();
    const connection = engine.connect('https://dapp.example', () => {});
    for (const [index, name] of PROTOTYPE_NAMES.entries()) {
      const response = await connection.handle({ jsonrpc: '2.0', id: index, method: name, params: {} });
      assert.deepEqual(response && 'error' in response && response.error.code, -32601, name);
    }
  });

  test('an approval naming scopes that were not offered grants none of them; none left is 4001', async () => {
    const { engine, setApprove } = createTestWallet();
    const { client } = connectDapp(engine);
    // As the reference wallet's approval API could pass them on from an HTTP body.
    const accounts = JSON.parse(`{"__proto__":["${ACCOUNT_B}"],"eip155":["${ACCOUNT_A}"]}`);
    setApprove(() => ({ approved: true, scopes: ['toString', '__proto__', 'eip155:10'], accounts }));
    const error = await rpcError(client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } }));
    assert.equal(error.code, 4001);
    assert.deepEqual(await client.getSession(), { sessionScopes: {} });
    setApprove(() => ({ approved: true, scopes: ['toString', 'eip155:1', 'eip155:1'], accounts }));
    const session = await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    assert.deepEqual(session.sessionScopes, { 'eip155:1': grantedScope('eip155:1', ACCOUNT_A) });
  });

  test('revoking scopes named after Object.prototype members changes nothing and sends nothing', async () => {
    const { engine } = createTestWallet();
    const { client, notifications } = connectDapp(engine);
    await client.createSession({ optionalScopes: { 'eip155:1': eip155Scope } });
    assert.equal(await client.revokeSession({ scopes: PROTOTYPE_NAMES }), true);
    assert.deepEqual(Object.keys((await client.getSession()).sessionScopes), ['eip155:1']);
    assert.deepEqual(notifications, []);
  });
});
