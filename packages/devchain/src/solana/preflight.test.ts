import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RpcError } from './errors.ts';
import { preflightFailure, signatureFailure } from './preflight.ts';

describe('refused transactions', () => {
  it('a bad or missing signature is -32003', () => {
    const err = signatureFailure();
    assert.ok(err instanceof RpcError);
    assert.equal(err.rpcCode, -32003);
    assert.equal(err.code, 'signature_failure');
    assert.equal(err.message, 'Transaction signature verification failure');
  });

  it('a preflight failure is -32002 with the simulation as data, return data in base64', () => {
    const err = preflightFailure({
      err: 'BlockhashNotFound',
      logs: ['Program log: x'],
      unitsConsumed: 7n,
      returnData: { programId: '11111111111111111111111111111111', data: new Uint8Array([1, 2]) },
    });
    assert.equal(err.rpcCode, -32002);
    assert.equal(err.code, 'preflight_failure');
    assert.match(err.message, /^Transaction simulation failed: /);
    assert.deepEqual(err.data, {
      err: 'BlockhashNotFound',
      logs: ['Program log: x'],
      accounts: null,
      unitsConsumed: 7n,
      returnData: { programId: '11111111111111111111111111111111', data: ['AQI=', 'base64'] },
      innerInstructions: null,
      replacementBlockhash: null,
    });
  });
});
