import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertCreateSessionParams,
  filterSessionProperties,
  invalidScopeReason,
  normalizeScopes,
  type ScopeObject,
} from '../src/index.ts';

const scope = (extra: Partial<ScopeObject> = {}): ScopeObject => ({
  methods: ['m'],
  notifications: ['n'],
  ...extra,
});

describe('CAIP-217 scope validation (invalid scopes are dropped)', () => {
  test('a chain scope and the wallet namespace are valid', () => {
    assert.equal(invalidScopeReason('eip155:1', scope()), undefined);
    assert.equal(invalidScopeReason('wallet', scope()), undefined);
    assert.equal(invalidScopeReason('wallet:eip155', scope()), undefined);
    assert.equal(invalidScopeReason('eip155', scope({ references: ['1'] })), undefined);
  });
  test('missing methods or notifications drops the scope', () => {
    assert.match(invalidScopeReason('eip155:1', { notifications: [] }) ?? '', /methods/);
    assert.match(invalidScopeReason('eip155:1', { methods: [] }) ?? '', /notifications/);
  });
  test('references on a key that already names a chain drops the scope', () => {
    assert.match(invalidScopeReason('eip155:1', scope({ references: ['1'] })) ?? '', /references/);
  });
  test('a namespace key without references (other than wallet) drops the scope', () => {
    assert.match(invalidScopeReason('eip155', scope()) ?? '', /without references/);
    assert.match(invalidScopeReason('eip155', scope({ references: [] })) ?? '', /without references/);
  });
  test('an extra member drops the scope', () => {
    assert.match(invalidScopeReason('eip155:1', { ...scope(), rpcEndpoints: [] }) ?? '', /rpcEndpoints/);
  });
  test('a key that is neither a CAIP-2 chain id nor a namespace drops the scope', () => {
    assert.ok(invalidScopeReason('EIP155:1', scope()));
    assert.ok(invalidScopeReason('ab:1', scope()));
    assert.ok(invalidScopeReason('eip155:' + 'x'.repeat(33), scope()));
  });
  test('the reason names the member at fault', () => {
    assert.equal(
      invalidScopeReason('eip155:1', scope({ methods: [1] as unknown as string[] })),
      'methods must be strings',
    );
    assert.equal(invalidScopeReason('eip155:1', 7), 'scope is not an object');
    assert.equal(
      invalidScopeReason('eip155', scope({ references: ['1', 'bad ref'] })),
      'invalid chain reference',
    );
    assert.equal(invalidScopeReason('wallet', scope({ references: ['bad ref'] })), 'invalid chain reference');
    assert.equal(
      invalidScopeReason('eip155:1', scope({ accounts: ['0xabc'] })),
      'invalid CAIP-10 account id',
    );
  });
  test('invalid references or CAIP-10 accounts drop the scope', () => {
    assert.ok(invalidScopeReason('eip155', scope({ references: ['1', 'bad ref'] })));
    assert.ok(invalidScopeReason('eip155:1', scope({ accounts: ['0xabc'] })));
  });
});

describe('normalizeScopes', () => {
  test('flattens namespace + references into one scope per chain', () => {
    const { scopes } = normalizeScopes({ eip155: scope({ references: ['1', '10'] }) });
    assert.deepEqual(Object.keys(scopes), ['eip155:1', 'eip155:10']);
    assert.deepEqual(scopes['eip155:10'], { methods: ['m'], notifications: ['n'], accounts: [] });
  });
  test('merges scopes with the same key (union of methods, notifications, accounts)', () => {
    const { scopes } = normalizeScopes({
      eip155: scope({ references: ['1'], methods: ['a'], accounts: ['eip155:1:0x01'] }),
      'eip155:1': { methods: ['a', 'b'], notifications: ['x'], accounts: ['eip155:1:0x02'] },
    });
    assert.deepEqual(scopes['eip155:1'], {
      methods: ['a', 'b'],
      notifications: ['n', 'x'],
      accounts: ['eip155:1:0x01', 'eip155:1:0x02'],
    });
  });
  test('treats required scopes as optional: both are merged into one set', () => {
    const { scopes } = normalizeScopes(
      { 'eip155:1': scope({ methods: ['r'] }) },
      { 'eip155:1': scope({ methods: ['o'] }), 'eip155:5': scope() },
    );
    assert.deepEqual(Object.keys(scopes).sort(), ['eip155:1', 'eip155:5']);
    assert.deepEqual(scopes['eip155:1'].methods, ['r', 'o']);
  });
  test('reports the dropped scopes with a reason', () => {
    const { scopes, dropped } = normalizeScopes({
      'eip155:1': { methods: [] } as unknown as ScopeObject,
      'eip155:2': scope(),
    });
    assert.deepEqual(Object.keys(scopes), ['eip155:2']);
    assert.equal(dropped.length, 1);
    assert.equal(dropped[0].scope, 'eip155:1');
  });
});

describe('wallet_createSession params (schema level: -32602 with failing paths)', () => {
  test('params that are not an object are -32602', () => {
    assert.throws(() => assertCreateSessionParams(['x']), { code: -32602 });
    assert.throws(() => assertCreateSessionParams('x'), { code: -32602 });
  });
  test('every failing path is listed in data', () => {
    try {
      assertCreateSessionParams({
        optionalScopes: { 'eip155:1': { methods: 'eth_call', notifications: [1] }, 'eip155:2': 5 },
        requiredScopes: [],
        sessionProperties: 'x',
      });
      assert.fail('expected -32602');
    } catch (error) {
      const { code, message, data } = error as { code: number; message: string; data: { path: string[] }[] };
      assert.equal(code, -32602);
      assert.equal(message, 'Invalid method parameter(s).');
      assert.deepEqual(
        data.map((issue) => issue.path.join('/')).sort(),
        [
          'optionalScopes/eip155:1/methods',
          'optionalScopes/eip155:1/notifications',
          'optionalScopes/eip155:2',
          'requiredScopes',
          'sessionProperties',
        ].sort(),
      );
    }
  });
  test('sessionProperties {} is 5302 and unknown members are dropped', () => {
    assert.throws(() => filterSessionProperties({}, ['known']), {
      code: 5302,
      message: 'Invalid sessionProperties requested',
    });
    assert.deepEqual(filterSessionProperties({ known: true, other: 1 }, ['known']), { known: true });
    assert.deepEqual(filterSessionProperties(undefined, ['known']), {});
  });
});
