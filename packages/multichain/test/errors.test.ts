import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as nodeEntry from '../src/node.ts';
import { connectDapp, createTestWallet } from './helpers.ts';

const {
  MultichainError,
  MultichainConnectionError,
  MultichainRpcError,
  MultichainTimeoutError,
  ProviderRpcError,
} = nodeEntry;

describe('one error base', () => {
  test('every error class either entry exports is a MultichainError', () => {
    const errorClasses = Object.entries(nodeEntry as Record<string, unknown>).flatMap(([name, value]) =>
      typeof value === 'function' && value.prototype instanceof Error ? [[name, value] as const] : [],
    );
    assert.deepEqual(errorClasses.map(([name]) => name).sort(), [
      'MultichainConnectionError',
      'MultichainError',
      'MultichainRpcError',
      'MultichainTimeoutError',
      'ProviderRpcError',
    ]);
    for (const [name, errorClass] of errorClasses) {
      if (errorClass === MultichainError) continue;
      assert.ok(errorClass.prototype instanceof MultichainError, `${name} extends MultichainError`);
    }
  });

  test('each carries its class name, a stable kind and its cause; JSON-RPC errors keep the numeric code', () => {
    const cause = new Error('socket closed');
    const cases = [
      [new MultichainRpcError('wallet_createSession', { code: 4001, message: 'rejected' }), 'wallet_error'],
      [new ProviderRpcError(4100, 'not authorised'), 'provider_error'],
      [new MultichainTimeoutError('wallet_getSession', 5), 'timeout'],
      [new MultichainConnectionError('the wallet is gone', { cause }), 'connection'],
    ] as const;
    for (const [error, kind] of cases) {
      assert.ok(error instanceof MultichainError);
      assert.equal(error.name, error.constructor.name);
      assert.equal(error.kind, kind);
    }
    assert.equal(cases[0][0].code, 4001);
    assert.equal(cases[1][0].code, 4100);
    assert.equal(cases[3][0].cause, cause);
  });
});

describe("the wallet's error as the dapp receives it", () => {
  test('a scope outside the session rejects with the wallet number 4100 as `code`, of kind wallet_error', async () => {
    const { engine } = createTestWallet();
    const { client } = connectDapp(engine);
    await client.createSession({
      optionalScopes: { 'eip155:1': { methods: ['eth_blockNumber'], notifications: [] } },
    });
    const error = await client
      .invokeMethod({ scope: 'eip155:10', request: { method: 'eth_blockNumber', params: [] } })
      .then(
        () => assert.fail('eip155:10 was not granted'),
        (thrown: unknown) => thrown,
      );
    assert.ok(error instanceof MultichainRpcError);
    assert.ok(error instanceof MultichainError);
    assert.equal(error.code, 4100);
    assert.equal(error.kind, 'wallet_error');
    assert.equal(error.name, 'MultichainRpcError');
    await client.close();
  });
});
