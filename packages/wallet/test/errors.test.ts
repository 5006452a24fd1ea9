import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as api from '../src/index.ts';
import { HttpError } from '../src/server.ts';

const { RpcError, WalletError } = api;

test('every error class the package exports is a WalletError', () => {
  const errorClasses = Object.entries(api).filter(
    ([, value]) => typeof value === 'function' && value.prototype instanceof Error,
  );
  assert.deepEqual(errorClasses.map(([name]) => name).sort(), ['RpcError', 'WalletError']);
  assert.ok(RpcError.prototype instanceof WalletError);
  assert.ok(HttpError.prototype instanceof WalletError);
});

test('each carries its class name and a stable kind; RpcError keeps the JSON-RPC number as `code`', () => {
  const rpc = new RpcError(api.REQUEST_EXPIRED_CODE, 'Request expired', { id: 1 });
  assert.equal(rpc.name, 'RpcError');
  assert.equal(rpc.kind, 'rpc_error');
  assert.equal(rpc.code, 8000);
  assert.deepEqual(rpc.data, { id: 1 });

  const refused = new HttpError(404, 'FUND_OFF', 'this wallet has no top-up (the fund option)');
  assert.ok(refused instanceof WalletError);
  assert.equal(refused.name, 'HttpError');
  assert.equal(refused.kind, 'request_refused');
  assert.equal(refused.status, 404);
  assert.equal(refused.code, 'FUND_OFF');
});
