import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as api from '../src/index.ts';
import { invalidParams, RpcError } from '../src/solana/errors.ts';

const { DevchainError, FaucetError } = api;

test('every error class the package exports is a DevchainError', () => {
  const errorClasses = Object.entries(api).filter(
    ([, value]) => typeof value === 'function' && value.prototype instanceof Error,
  );
  assert.deepEqual(errorClasses.map(([name]) => name).sort(), ['DevchainError', 'FaucetError']);
  assert.ok(FaucetError.prototype instanceof DevchainError);
  assert.ok(RpcError.prototype instanceof DevchainError);
});

test('a faucet refusal has its class name, a stable string code and the HTTP status it is answered with', () => {
  const cause = new Error('connection refused');
  const cases = [
    [new FaucetError('INVALID_ADDRESS', 'address is required'), 400],
    [new FaucetError('NO_CHAIN', 'no solana dev chain runs here'), 404],
    [new FaucetError('CHAIN_ERROR', 'anvil_setBalance failed', { cause }), 502],
  ] as const;
  for (const [error, status] of cases) {
    assert.ok(error instanceof DevchainError);
    assert.equal(error.name, 'FaucetError');
    assert.equal(typeof error.code, 'string');
    assert.equal(error.status, status);
  }
  assert.equal(cases[2][0].cause, cause);
});

test("a Solana RPC error's code is a stable string and agave's number is rpcCode (the wire tests check the number)", () => {
  const error = invalidParams('Invalid param: WrongSize');
  assert.ok(error instanceof DevchainError);
  assert.equal(error.name, 'RpcError');
  assert.equal(error.code, 'invalid_params');
  assert.equal(error.rpcCode, -32602);
});
