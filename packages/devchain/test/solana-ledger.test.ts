import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  address,
  airdropFactory,
  appendTransactionMessageInstruction,
  assertIsTransactionWithBlockhashLifetime,
  compileTransaction,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  devnet,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64Decoder,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { type SolanaLedger, startSolanaLedger } from '../src/index.ts';
import { memoInstruction } from '../src/solana/seed.ts';
import {
  airdrop,
  connect,
  latest,
  type Rpc,
  raw,
  send,
  settled,
  signedTransaction,
  signedTransfer,
} from './solana-client.ts';

const SOL = 1_000_000_000n;

describe('Solana dev ledger through @solana/kit', () => {
  let ledger: SolanaLedger;
  let rpc: Rpc;

  before(async () => {
    ledger = await startSolanaLedger({ seed: true, slotMs: 20 });
    rpc = connect(ledger.url);
  });
  after(() => ledger.stop());

  test('identifies itself: genesis hash, CAIP-2 chain id, version, health', async () => {
    assert.equal(await rpc.getGenesisHash().send(), ledger.genesisHash);
    assert.equal(ledger.chainId, `solana:${ledger.genesisHash.slice(0, 32)}`);
    assert.match(ledger.chainId, /^solana:[1-9A-HJ-NP-Za-km-z]{32}$/);
    assert.equal(await rpc.getHealth().send(), 'ok');
    assert.equal(typeof (await rpc.getVersion().send())['solana-core'], 'string');
    assert.equal(await rpc.getMinimumBalanceForRentExemption(0n).send(), 890880n);
  });

  test('dev accounts are deterministic 64-byte keypairs', async () => {
    assert.deepEqual(
      ledger.devAccounts.map((a) => a.name),
      ['alice', 'bob', 'carol', 'dave'],
    );
    for (const account of ledger.devAccounts) {
      assert.equal(account.secretKey.length, 64);
      assert.equal(getBase58Decoder().decode(account.secretKey.subarray(32)), account.address);
    }
    const again = await startSolanaLedger({ slotMs: 1000 });
    try {
      assert.deepEqual(
        again.devAccounts.map((a) => a.address),
        ledger.devAccounts.map((a) => a.address),
      );
      assert.notEqual(again.genesisHash, ledger.genesisHash);
    } finally {
      await again.stop();
    }
  });

  test('seeded activity is listed at once at finalized: airdrops, memos, a failed transfer', async () => {
    const [alice, , , dave] = ledger.devAccounts;
    const entries = await rpc
      .getSignaturesForAddress(address(alice.address), { commitment: 'finalized' })
      .send();
    assert.ok(entries.length >= 5);
    for (const entry of entries) assert.equal(entry.confirmationStatus, 'finalized');
    const memos = entries.map((e) => e.memo).filter((m) => m !== null);
    assert.deepEqual(memos.sort(), ['[18] hello solana-local', '[7] thanks!']);
    const failed = entries.filter((e) => e.err !== null);
    assert.equal(failed.length, 1);
    assert.deepEqual(failed[0].err, { InstructionError: [0n, { Custom: 1n }] });
    const daves = await rpc
      .getSignaturesForAddress(address(dave.address), { commitment: 'finalized' })
      .send();
    assert.equal(daves[0].signature, failed[0].signature);
    assert.ok((await rpc.getBalance(address(alice.address)).send()).value > 99n * SOL);
  });

  test('funds a new keypair by airdrop and sends transfers with and without a memo', async () => {
    const sender = await generateKeyPairSigner();
    const receiver = await generateKeyPairSigner();
    const funding = await airdrop(rpc, sender.address, 2n * SOL);
    assert.equal((await rpc.getBalance(sender.address, { commitment: 'confirmed' }).send()).value, 2n * SOL);

    const plain = await send(
      rpc,
      await signedTransfer(sender, receiver.address, SOL / 2n, await latest(rpc)),
    );
    const text = 'grüße from portico';
    const withMemo = await send(
      rpc,
      await signedTransfer(sender, receiver.address, SOL / 4n, await latest(rpc), text),
    );
    await settled(rpc, withMemo, 'confirmed');
    await settled(rpc, plain, 'confirmed');

    assert.equal(
      (await rpc.getBalance(receiver.address, { commitment: 'confirmed' }).send()).value,
      (3n * SOL) / 4n,
    );
    assert.equal(
      (await rpc.getBalance(sender.address, { commitment: 'confirmed' }).send()).value,
      2n * SOL - (3n * SOL) / 4n - 10_000n,
    );
    const entries = await rpc.getSignaturesForAddress(receiver.address, { commitment: 'confirmed' }).send();
    assert.deepEqual(
      entries.map((e) => [e.signature, e.memo, e.err]),
      [
        [withMemo, `[${Buffer.byteLength(text)}] ${text}`, null],
        [plain, null, null],
      ],
    );
    const senders = await rpc.getSignaturesForAddress(sender.address, { commitment: 'confirmed' }).send();
    assert.deepEqual(
      senders.map((e) => e.signature),
      [withMemo, plain, funding],
    );

    const tx = await rpc
      .getTransaction(withMemo, {
        commitment: 'confirmed',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    assert.ok(tx);
    assert.equal(tx.meta?.fee, 5000n);
    assert.equal(tx.meta?.err, null);
    assert.deepEqual(tx.transaction.signatures, [withMemo]);
    assert.equal(tx.transaction.message.accountKeys[0], sender.address);
    assert.equal(tx.version, 0);
    assert.equal(tx.meta?.preBalances[1], SOL / 2n);
    assert.equal(tx.meta?.postBalances[1], (3n * SOL) / 4n);

    const account = await rpc
      .getAccountInfo(receiver.address, { encoding: 'base64', commitment: 'confirmed' })
      .send();
    assert.equal(account.value?.lamports, (3n * SOL) / 4n);
    assert.equal(account.value?.owner, '11111111111111111111111111111111');
    assert.deepEqual(account.value?.data, ['', 'base64']);
  });

  test('a failing transfer sent without preflight lands with its err and pays its fee', async () => {
    const poor = await generateKeyPairSigner();
    const other = await generateKeyPairSigner();
    await airdrop(rpc, poor.address, SOL);
    const signature = await send(
      rpc,
      await signedTransfer(poor, other.address, 5n * SOL, await latest(rpc)),
      true,
    );
    const status = await settled(rpc, signature, 'confirmed');
    assert.deepEqual(status.err, { InstructionError: [0n, { Custom: 1n }] });
    assert.deepEqual(status.status, { Err: { InstructionError: [0n, { Custom: 1n }] } });
    assert.equal((await rpc.getBalance(poor.address, { commitment: 'confirmed' }).send()).value, SOL - 5000n);
    const [entry] = await rpc.getSignaturesForAddress(other.address, { commitment: 'confirmed' }).send();
    assert.equal(entry.signature, signature);
    assert.deepEqual(entry.err, { InstructionError: [0n, { Custom: 1n }] });
    const tx = await rpc
      .getTransaction(signature, {
        commitment: 'confirmed',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    assert.deepEqual(tx?.meta?.err, { InstructionError: [0n, { Custom: 1n }] });
    assert.ok(tx?.meta?.logMessages?.some((line) => line.includes('custom program error: 0x1')));
  });

  test('preflight refuses a failing transaction with -32002 and the simulation result', async () => {
    const poor = await generateKeyPairSigner();
    await airdrop(rpc, poor.address, SOL);
    const wire = await signedTransfer(
      poor,
      address(ledger.devAccounts[0].address),
      5n * SOL,
      await latest(rpc),
    );
    const answer = await raw(ledger.url, 'sendTransaction', [wire, { encoding: 'base64' }]);
    assert.equal(answer.error?.code, -32002);
    assert.equal(
      answer.error?.message,
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    );
    const data = answer.error?.data as { err: unknown; logs: string[]; unitsConsumed: number };
    assert.deepEqual(data.err, { InstructionError: [0, { Custom: 1 }] });
    assert.ok(data.logs.length > 0);
    await assert.rejects(send(rpc, wire), (error: Error & { context?: { __code?: number } }) => {
      assert.equal(error.context?.__code, -32002);
      return true;
    });
    const unfunded = await generateKeyPairSigner();
    const broke = await raw(ledger.url, 'sendTransaction', [
      await signedTransfer(unfunded, poor.address, 1n, await latest(rpc)),
      { encoding: 'base64' },
    ]);
    assert.equal(broke.error?.code, -32002);
    assert.equal((broke.error?.data as { err: unknown } | undefined)?.err, 'AccountNotFound');
  });

  test('simulateTransaction runs without signatures checked and can replace the blockhash', async () => {
    const signer = await generateKeyPairSigner();
    await airdrop(rpc, signer.address, SOL);
    const wire = await signedTransaction(signer, [memoInstruction('simulated')], {
      blockhash: (await latest(rpc)).blockhash,
      lastValidBlockHeight: 0n,
    });
    const simulated = await rpc
      .simulateTransaction(wire as Parameters<Rpc['simulateTransaction']>[0], {
        encoding: 'base64',
        replaceRecentBlockhash: true,
      })
      .send();
    assert.equal(simulated.value.err, null);
    assert.ok((simulated.value.unitsConsumed ?? 0n) > 0n);
    assert.ok(simulated.value.replacementBlockhash?.blockhash);
  });

  test('getMultipleAccounts, getFeeForMessage and getTransactionCount answer as on a cluster', async () => {
    const [alice, bob] = ledger.devAccounts;
    const stranger = await generateKeyPairSigner();
    const { value: accounts } = await rpc
      .getMultipleAccounts([address(alice.address), stranger.address, address(bob.address)], {
        encoding: 'base64',
      })
      .send();
    assert.equal(accounts.length, 3);
    assert.ok((accounts[0]?.lamports ?? 0n) > 0n);
    assert.equal(accounts[1], null);
    const payer = await generateKeyPairSigner();
    const lifetime = await latest(rpc);
    const message = compileTransaction(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) => appendTransactionMessageInstruction(memoInstruction('fee?'), m),
      ),
    ).messageBytes;
    const base64 = getBase64Decoder().decode(message) as Parameters<Rpc['getFeeForMessage']>[0];
    assert.equal((await rpc.getFeeForMessage(base64).send()).value, 5000n);
    const processed = await rpc.getTransactionCount({ commitment: 'processed' }).send();
    const finalized = await rpc.getTransactionCount({ commitment: 'finalized' }).send();
    assert.ok(processed >= finalized && finalized >= 9n);
  });

  test('an address never seen has an empty history', async () => {
    const stranger = await generateKeyPairSigner();
    assert.deepEqual(
      await rpc.getSignaturesForAddress(stranger.address, { commitment: 'finalized' }).send(),
      [],
    );
    assert.deepEqual(
      await rpc.getSignaturesForAddress(stranger.address, { commitment: 'confirmed' }).send(),
      [],
    );
    assert.equal((await rpc.getBalance(stranger.address).send()).value, 0n);
    assert.equal((await rpc.getAccountInfo(stranger.address).send()).value, null);
    const unknown = getBase58Decoder().decode(new Uint8Array(64).fill(3));
    const statuses = await rpc.getSignatureStatuses([unknown as Parameters<Rpc['getTransaction']>[0]]).send();
    assert.deepEqual(statuses.value, [null]);
    assert.equal(
      await rpc
        .getTransaction(unknown as Parameters<Rpc['getTransaction']>[0], {
          encoding: 'json',
          commitment: 'confirmed',
        })
        .send(),
      null,
    );
  });

  test('refuses bad getSignaturesForAddress parameters with the Solana RPC errors', async () => {
    const alice = ledger.devAccounts[0].address;
    const cases: [unknown[], number, string][] = [
      [[alice, { commitment: 'processed' }], -32602, 'Method does not support commitment below `confirmed`'],
      [[alice, { limit: 0 }], -32602, 'Invalid limit; max 1000'],
      [[alice, { limit: 1001 }], -32602, 'Invalid limit; max 1000'],
      [['not-base58-0OIl'], -32602, 'Invalid param: Invalid'],
      [['abc'], -32602, 'Invalid param: WrongSize'],
      [[alice, { before: alice }], -32602, 'Invalid param: WrongSize'],
      [[alice, { until: '0'.repeat(88) }], -32602, 'Invalid param: Invalid'],
    ];
    for (const [params, code, message] of cases) {
      const answer = await raw(ledger.url, 'getSignaturesForAddress', params);
      assert.deepEqual(answer.error, { code, message }, JSON.stringify(params));
    }
    const missing = await raw(ledger.url, 'getSignaturesForAddress', []);
    assert.equal(missing.error?.code, -32602);
    const ignored = await raw(ledger.url, 'getSignaturesForAddress', [alice, { somethingElse: 1 }]);
    assert.ok(Array.isArray(ignored.result), 'unknown config members are ignored, as agave ignores them');
  });

  test('answers JSON-RPC protocol errors with the standard codes', async () => {
    assert.equal((await raw(ledger.url, 'noSuchMethod', [])).error?.code, -32601);
    const preflight = await fetch(ledger.url, { method: 'OPTIONS' });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    const parse = await fetch(ledger.url, { method: 'POST', body: '{"jsonrpc":' });
    assert.equal(((await parse.json()) as { error: { code: number } }).error.code, -32700);
    const batch = await fetch(ledger.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getHealth' },
        { jsonrpc: '2.0', id: 2, method: 'getGenesisHash' },
      ]),
    });
    assert.deepEqual(await batch.json(), [
      { jsonrpc: '2.0', id: 1, result: 'ok' },
      { jsonrpc: '2.0', id: 2, result: ledger.genesisHash },
    ]);
    const alice = ledger.devAccounts[0].address;
    const dropped = await raw(ledger.url, 'requestAirdrop', [alice, lamports(5n).toString()]);
    assert.equal(dropped.error?.code, -32602);
  });
});

// kit's own confirmation strategies: signatureNotifications + slotNotifications over the ledger's
// WebSocket endpoint, getEpochInfo and getSignatureStatuses over HTTP.
describe('Solana ledger subscriptions with kit confirmation', () => {
  let ledger: SolanaLedger;
  let rpc: Rpc;
  let rpcSubscriptions: ReturnType<typeof createSolanaRpcSubscriptions<ReturnType<typeof devnet>>>;

  before(async () => {
    ledger = await startSolanaLedger({ slotMs: 20 });
    rpc = connect(ledger.url);
    rpcSubscriptions = createSolanaRpcSubscriptions(devnet(ledger.wsUrl));
  });
  after(() => ledger.stop());

  test('airdropFactory and sendAndConfirmTransactionFactory confirm through subscriptions', async () => {
    const sender = await generateKeyPairSigner();
    const receiver = await generateKeyPairSigner();
    await airdropFactory({ rpc, rpcSubscriptions })({
      recipientAddress: sender.address,
      lamports: lamports(2_000_000_000n),
      commitment: 'confirmed',
    });
    assert.equal(
      (await rpc.getBalance(sender.address, { commitment: 'confirmed' }).send()).value,
      2_000_000_000n,
    );

    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(sender, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) =>
        appendTransactionMessageInstruction(
          getTransferSolInstruction({
            source: sender,
            destination: receiver.address,
            amount: lamports(1_000_000_000n),
          }),
          m,
        ),
    );
    const signed = await signTransactionMessageWithSigners(message);
    assertIsTransactionWithBlockhashLifetime(signed);
    await sendAndConfirmTransactionFactory({ rpc, rpcSubscriptions })(signed, { commitment: 'finalized' });
    const [entry] = await rpc.getSignaturesForAddress(receiver.address, { commitment: 'finalized' }).send();
    assert.equal(entry.signature, getSignatureFromTransaction(signed));
    assert.equal(entry.confirmationStatus, 'finalized');
  });

  test('slot notifications arrive in order', async () => {
    const abortController = new AbortController();
    const notifications = await rpcSubscriptions
      .slotNotifications()
      .subscribe({ abortSignal: abortController.signal });
    const slots: bigint[] = [];
    for await (const notification of notifications) {
      slots.push(notification.slot);
      assert.equal(notification.parent, notification.slot - 1n);
      if (slots.length === 3) break;
    }
    abortController.abort();
    assert.ok(slots[0] < slots[1] && slots[1] < slots[2]);
  });
});
