import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DevFaucet, FaucetError, type FaucetNamespace, fundFromRequest } from '../src/index.ts';

/** A faucet that records what it was asked to fund (no chain behind it). */
function recordingFaucet() {
  const asked: [FaucetNamespace, string, bigint | undefined][] = [];
  const faucet: DevFaucet = {
    chains: {},
    amounts: { eip155: 1n, solana: 1n },
    async fund(namespace, address, amount) {
      asked.push([namespace, address, amount]);
      return {
        namespace,
        chainId: 'eip155:31337',
        address,
        symbol: 'ETH',
        decimals: 18,
        amount: 1n,
        balance: 1n,
      };
    },
    async fundIfEmpty() {
      return undefined;
    },
  };
  return { faucet, asked };
}

test('a fund body that does not fit is refused with the field’s code and a message naming it', async () => {
  const { faucet, asked } = recordingFaucet();
  const evm = `0x${'1'.repeat(40)}`;
  const cases: [body: unknown, code: string, message: string][] = [
    [[evm], 'INVALID_REQUEST', 'body must be a JSON object: {"address": "0x…" or base58, "amount"?: "10"}'],
    [null, 'INVALID_REQUEST', 'body must be a JSON object: {"address": "0x…" or base58, "amount"?: "10"}'],
    [{}, 'INVALID_ADDRESS', 'address is required'],
    [{ address: 7 }, 'INVALID_ADDRESS', 'address is required'],
    [
      { address: 'nope' },
      'INVALID_ADDRESS',
      'address must be an EVM address (0x…) or a Solana address (base58)',
    ],
    [{ address: evm, amount: true }, 'INVALID_AMOUNT', 'amount must be a decimal string, e.g. "2.5"'],
  ];
  for (const [body, code, message] of cases)
    await assert.rejects(fundFromRequest(faucet, body), (error: unknown) => {
      assert.ok(error instanceof FaucetError, JSON.stringify(body));
      assert.equal(error.code, code, JSON.stringify(body));
      assert.equal(error.message, message);
      return true;
    });
  assert.deepEqual(asked, [], 'nothing refused reached the faucet');

  await fundFromRequest(faucet, { address: evm, amount: 2 });
  await fundFromRequest(faucet, { address: evm });
  assert.deepEqual(asked, [
    ['eip155', evm, 2_000_000_000_000_000_000n],
    ['eip155', evm, undefined],
  ]);
});
