import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  assertCreateSessionParams,
  assertInvokeMethodParams,
  assertRevokeSessionParams,
  filterSessionProperties,
} from './validate.ts';

/** The -32602 error's data: every failing path with its message. */
function issues(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    const { code, message, data } = err as { code: number; message: string; data: unknown };
    assert.equal(code, -32602);
    assert.equal(message, 'Invalid method parameter(s).');
    return data;
  }
  assert.fail('expected -32602');
}

describe('Multichain API param shapes', () => {
  it('lists every failing path of wallet_createSession, in order', () => {
    const data = issues(() =>
      assertCreateSessionParams({
        requiredScopes: { 'eip155:1': { methods: 'eth_call', accounts: [1] }, bad: 7 },
        optionalScopes: [],
        sessionProperties: 'x',
      }),
    );
    assert.deepEqual(data, [
      { path: ['requiredScopes', 'eip155:1', 'methods'], message: 'must be an array of strings' },
      { path: ['requiredScopes', 'eip155:1', 'accounts'], message: 'must be an array of strings' },
      { path: ['requiredScopes', 'bad'], message: 'must be a scope object' },
      { path: ['optionalScopes'], message: 'must be an object of scope objects' },
      { path: ['sessionProperties'], message: 'must be an object' },
    ]);
  });

  it('takes no params as an empty request and refuses a non-object', () => {
    assert.deepEqual(assertCreateSessionParams(undefined), {});
    assert.deepEqual(
      issues(() => assertCreateSessionParams('x')),
      [{ path: [], message: 'params must be an object' }],
    );
  });

  it('checks scope keys such as __proto__ as data, and refuses objects that are not plain', () => {
    const requiredScopes = JSON.parse('{"__proto__": {"methods": 1}}');
    assert.deepEqual(
      issues(() => assertCreateSessionParams({ requiredScopes })),
      [{ path: ['requiredScopes', '__proto__', 'methods'], message: 'must be an array of strings' }],
    );
    const inherited = Object.create({ scope: 'eip155:1', request: { method: 'eth_chainId' } });
    assert.deepEqual(
      issues(() => assertInvokeMethodParams(inherited)),
      [{ path: [], message: 'params must be an object' }],
    );
  });

  it('builds the invoke request with params only when given', () => {
    assert.deepEqual(assertInvokeMethodParams({ scope: 'eip155:1', request: { method: 'eth_chainId' } }), {
      scope: 'eip155:1',
      request: { method: 'eth_chainId' },
    });
    assert.deepEqual(
      issues(() => assertInvokeMethodParams({ scope: 1, request: { method: 2 } })),
      [
        { path: ['scope'], message: 'must be a string' },
        { path: ['request', 'method'], message: 'must be a string' },
      ],
    );
  });

  it('takes a partial revoke by scope strings, and no params or an array as a full revoke', () => {
    assert.deepEqual(assertRevokeSessionParams({ scopes: ['eip155:1'] }), { scopes: ['eip155:1'] });
    assert.deepEqual(assertRevokeSessionParams([]), {});
    assert.deepEqual(
      issues(() => assertRevokeSessionParams({ scopes: [1] })),
      [{ path: ['scopes'], message: 'must be an array of strings' }],
    );
  });

  it('keeps known session properties; present but empty is 5302', () => {
    assert.deepEqual(filterSessionProperties({ a: 1, b: 2 }, ['a']), { a: 1 });
    assert.throws(() => filterSessionProperties({}, ['a']), { code: 5302 });
  });
});
