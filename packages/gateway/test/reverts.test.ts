// Reverts in eth_call and eth_estimateGas: code 3, `execution reverted: <decoded reason>`, data =
// the revert payload, for Error(string), Panic(uint256) and a custom error; viem decodes them.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type EvmSeed, PorticoDemo } from '@portico/devchain';
import {
  BaseError,
  ContractFunctionRevertedError,
  concatHex,
  createPublicClient,
  ExecutionRevertedError,
  encodeAbiParameters,
  encodeErrorResult,
  encodeFunctionData,
  type Hex,
  http,
  type PublicClient,
  toFunctionSelector,
  zeroAddress,
} from 'viem';
import { rpc, type Stack, startStack } from './harness.ts';

let stack: Stack;
let seed: EvmSeed;
let url: string;
let client: PublicClient;

before(async () => {
  stack = await startStack();
  seed = stack.seed!;
  url = stack.url(stack.key);
  client = createPublicClient({ transport: http(url, { timeout: 60_000 }) });
});
after(async () => {
  await stack?.close();
});

const REASON = 'PorticoDemo: deliberate revert';
const reasonPayload = concatHex(['0x08c379a0', encodeAbiParameters([{ type: 'string' }], [REASON])]);
const panicPayload = concatHex(['0x4e487b71', encodeAbiParameters([{ type: 'uint256' }], [0x11n])]);
const customSelector = toFunctionSelector('Unauthorized(address)');

type Case = { name: string; data: Hex; message: string; payload: (from: Hex) => Hex };

const cases = (): Case[] => [
  {
    name: 'failWithReason (Error(string))',
    data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'failWithReason' }),
    message: `execution reverted: ${REASON}`,
    payload: () => reasonPayload,
  },
  {
    name: 'failWithPanic(0) (Panic(0x11))',
    data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'failWithPanic', args: [0n] }),
    message: 'execution reverted: arithmetic underflow or overflow',
    payload: () => panicPayload,
  },
  {
    name: 'failWithCustomError (Unauthorized(address))',
    data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'failWithCustomError' }),
    message: `execution reverted: custom error ${customSelector}`,
    payload: (from) => encodeErrorResult({ abi: PorticoDemo.abi, errorName: 'Unauthorized', args: [from] }),
  },
];

describe('raw JSON-RPC', () => {
  for (const method of ['eth_call', 'eth_estimateGas'] as const) {
    test(`${method}: every kind of revert is code 3 with the decoded reason and the payload`, async () => {
      for (const c of cases()) {
        for (const from of [undefined, seed.accounts[1]]) {
          const call = { ...(from ? { from } : {}), to: seed.demoContract, data: c.data };
          const reply = await rpc(url, method, method === 'eth_call' ? [call, 'latest'] : [call]);
          assert.equal(reply.status, 200, reply.text);
          const error = reply.body.error;
          assert.ok(error, `${c.name} from ${from}: ${reply.text}`);
          assert.equal(error.code, 3, c.name);
          assert.equal(error.message, c.message, c.name);
          assert.equal(
            (error.data as string).toLowerCase(),
            c.payload((from ?? zeroAddress) as Hex).toLowerCase(),
            c.name,
          );
          assert.equal(reply.body.result, undefined);
        }
      }
    });
  }

  test('a custom error never shows raw bytes beyond its selector in the message', async () => {
    const reply = await rpc(url, 'eth_call', [
      {
        to: seed.demoContract,
        data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'failWithCustomError' }),
      },
      'latest',
    ]);
    assert.ok(reply.body.error);
    assert.ok((reply.body.error.data as string).startsWith(customSelector));
    assert.doesNotMatch(reply.body.error.message, /0x[0-9a-f]{9,}/i);
  });
});

describe('viem as the client', () => {
  const revertedError = (error: unknown) => {
    assert.ok(error && typeof error === 'object' && 'walk' in error, `not a viem error: ${error}`);
    const found = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
    assert.ok(found instanceof ContractFunctionRevertedError, `no ContractFunctionRevertedError in ${error}`);
    return found;
  };

  test('readContract of failWithReason: ContractFunctionRevertedError carries the reason', async () => {
    const error = await client
      .readContract({ address: seed.demoContract, abi: PorticoDemo.abi, functionName: 'failWithReason' })
      .then(
        () => assert.fail('the call must revert'),
        (e: unknown) => e,
      );
    const reverted = revertedError(error);
    assert.equal(reverted.reason, REASON);
    assert.equal(reverted.data?.errorName, 'Error');
  });

  test('readContract of failWithPanic(0): the panic is decoded', async () => {
    const error = await client
      .readContract({
        address: seed.demoContract,
        abi: PorticoDemo.abi,
        functionName: 'failWithPanic',
        args: [0n],
      })
      .then(
        () => assert.fail('the call must revert'),
        (e: unknown) => e,
      );
    const reverted = revertedError(error);
    assert.equal(reverted.data?.errorName, 'Panic');
    assert.match(reverted.reason ?? '', /underflow or overflow/);
  });

  test('readContract of failWithCustomError: the custom error and its argument are decoded', async () => {
    const account = seed.accounts[2];
    const error = await client
      .readContract({
        address: seed.demoContract,
        abi: PorticoDemo.abi,
        functionName: 'failWithCustomError',
        account,
      })
      .then(
        () => assert.fail('the call must revert'),
        (e: unknown) => e,
      );
    const reverted = revertedError(error);
    assert.equal(reverted.data?.errorName, 'Unauthorized');
    assert.equal(String(reverted.data?.args?.[0]).toLowerCase(), account.toLowerCase());
  });

  test('estimateGas of failWithReason: the reason reaches viem', async () => {
    const error = await client
      .estimateGas({
        account: seed.accounts[0],
        to: seed.demoContract,
        data: encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'failWithReason' }),
      })
      .then(
        () => assert.fail('the estimate must revert'),
        (e: unknown) => e,
      );
    assert.ok(error instanceof BaseError, `not a viem error: ${error}`);
    const reverted = error.walk((e) => e instanceof ExecutionRevertedError);
    assert.ok(reverted instanceof ExecutionRevertedError, `no ExecutionRevertedError in ${error}`);
    assert.match(reverted.message, /PorticoDemo: deliberate revert/);
  });
});
