import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PorticoDemo } from '@portico/devchain';
import {
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { encodeFunctionData, parseEther, stringToBytes } from 'viem';
import {
  describeEvmTransaction,
  describeMessage,
  describeSolanaTransaction,
  describeTypedData,
  type SigningField,
} from '../src/index.ts';

const DEMO = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const contracts = [{ name: 'PorticoDemo', address: DEMO, abi: PorticoDemo.abi }];
const fields = (list: SigningField[]) => Object.fromEntries(list.map((f) => [f.label, f.value]));

test('a message is text when it is printable UTF-8, hex otherwise (control characters, invalid UTF-8)', () => {
  assert.deepEqual(describeMessage(stringToBytes('Gm ☀️\nline two\ttab')), {
    label: 'Message',
    value: 'Gm ☀️\nline two\ttab',
    format: 'text',
  });
  assert.deepEqual(describeMessage(stringToBytes('ok\u0000hidden')), {
    label: 'Message (hex)',
    value: '0x6f6b0068696464656e',
    format: 'code',
  });
  assert.equal(describeMessage(new Uint8Array([0xc3, 0x28])).label, 'Message (hex)');
});

test('a transaction names a deployment, an unknown contract’s selector, and a known contract’s call with its value', () => {
  const deploy = describeEvmTransaction({ from: DEMO, data: '0x6080604052' }, contracts);
  assert.equal(deploy.summary, 'Deploy a contract');
  assert.equal(fields(deploy.fields).To, 'New contract (deployment)');

  const other = '0x000000000000000000000000000000000000dEaD';
  const unknown = describeEvmTransaction({ from: DEMO, to: other, data: '0xa9059cbb0000' }, contracts);
  assert.equal(unknown.summary, `Call function 0xa9059cbb on ${other}`);
  assert.equal(fields(unknown.fields).Contract, undefined);

  // A known address whose calldata does not decode with its ABI: the selector, nothing invented.
  const garbled = describeEvmTransaction({ from: other, to: DEMO, data: '0x6057361d00' }, contracts);
  assert.equal(fields(garbled.fields)['Function selector'], '0x6057361d');
  assert.equal(fields(garbled.fields).Function, undefined);

  const data = encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'storeNonZero', args: [7n] });
  const call = describeEvmTransaction(
    {
      from: other,
      to: DEMO.toLowerCase(),
      value: parseEther('1.5'),
      data,
      gas: 21000n,
      maxFeePerGas: 2_000_000_000n,
    },
    contracts,
  );
  assert.equal(call.summary, `Call PorticoDemo.storeNonZero on ${DEMO.toLowerCase()} with 1.5 ETH`);
  assert.deepEqual(fields(call.fields), {
    To: DEMO.toLowerCase(),
    Value: '1.5 ETH',
    'Function selector': data.slice(0, 10),
    Contract: 'PorticoDemo',
    Function: 'storeNonZero(uint256)',
    'newValue (uint256)': '7',
    Data: data,
    'Gas limit': '21000',
    'Max network fee': '0.000042 ETH (2 gwei per gas)',
  });
});

test('typed data with more fields than the page lists counts the rest', () => {
  const message = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`f${i}`, i]));
  const details = describeTypedData({ primaryType: 'Big', message });
  assert.equal(details.fields.length, 201);
  assert.deepEqual(details.fields.at(-1), { label: 'More fields', value: '51 not shown', format: 'text' });
});

test('a Solana transaction lists each transfer and names the program of any other instruction', () => {
  const payer = address('9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM');
  const to = address('4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T');
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 10n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getTransferSolInstruction({
            source: createNoopSigner(payer),
            destination: to,
            amount: 1_250_000_000n,
          }),
          {
            programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
            data: new TextEncoder().encode('thanks'),
          },
        ],
        m,
      ),
  );
  const details = describeSolanaTransaction(compileTransaction(message).messageBytes, { sends: false });
  assert.equal(details.title, 'Signature request');
  assert.equal(details.summary, 'Sign a transaction with 2 instructions');
  assert.deepEqual(fields(details.fields), {
    'Fee payer': payer,
    'Recipient (instruction 1)': to,
    'Amount (instruction 1)': '1.25 SOL',
    'From (instruction 1)': payer,
    'Instruction 2': 'program MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr, 6 bytes of data, 0 accounts',
  });
});
