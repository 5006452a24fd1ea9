import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { address, generateKeyPairSigner, type KeyPairSigner, lamports, type Signature } from '@solana/kit';
import { startSolanaLedger } from '../src/index.ts';
import { FINALIZATION_DEPTH, Ledger } from '../src/solana/ledger.ts';
import { type RpcServer, startRpcServer } from '../src/solana/server.ts';
import { airdrop, connect, latest, type Rpc, raw, send, signedTransfer, until } from './solana-client.ts';

// The ledger here has no clock: the test produces every slot itself, so each commitment level is
// observed exactly at the slot it changes.
describe('Solana ledger commitment levels as slots advance', () => {
  let ledger: Ledger;
  let server: RpcServer;
  let rpc: Rpc;
  let payer: KeyPairSigner;
  let payee: KeyPairSigner;

  before(async () => {
    ledger = await Ledger.open();
    server = await startRpcServer(ledger, 0, () => {});
    rpc = connect(server.url);
    payer = await generateKeyPairSigner();
    payee = await generateKeyPairSigner();
    const funded = rpc.requestAirdrop(payer.address, lamports(10n ** 10n)).send();
    await funded;
    ledger.advanceSlot();
    await rpc.requestAirdrop(payee.address, lamports(10n ** 9n)).send();
    for (let i = 0; i <= FINALIZATION_DEPTH; i++) ledger.advanceSlot();
  });

  after(async () => {
    await server.close();
    ledger.close();
  });

  test('getSlot and getBlockHeight: processed is the newest slot, confirmed 1 behind, finalized 32 behind', async () => {
    const processed = Number(await rpc.getSlot({ commitment: 'processed' }).send());
    assert.equal(processed, ledger.slot);
    assert.equal(Number(await rpc.getSlot({ commitment: 'confirmed' }).send()), processed - 1);
    assert.equal(Number(await rpc.getSlot({ commitment: 'finalized' }).send()), processed - 32);
    assert.equal(Number(await rpc.getBlockHeight({ commitment: 'finalized' }).send()), processed - 32);
  });

  test('a transaction moves processed → confirmed → finalized in history, status and getTransaction', async () => {
    const signature: Signature = await send(
      rpc,
      await signedTransfer(payer, payee.address, 1234n, await latest(rpc)),
    );
    const slot = ledger.slot;
    const history = async (commitment: 'confirmed' | 'finalized') =>
      (await rpc.getSignaturesForAddress(payee.address, { commitment }).send()).find(
        (e) => e.signature === signature,
      );
    const status = async () => (await rpc.getSignatureStatuses([signature]).send()).value[0];

    let current = await status();
    assert.equal(current?.confirmationStatus, 'processed');
    assert.equal(current?.slot, BigInt(slot));
    assert.equal(current?.confirmations, 0n);
    assert.equal(await history('confirmed'), undefined);
    assert.equal(await history('finalized'), undefined);
    assert.equal(
      await rpc
        .getTransaction(signature, {
          commitment: 'confirmed',
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
        })
        .send(),
      null,
    );

    ledger.advanceSlot();
    current = await status();
    assert.equal(current?.confirmationStatus, 'confirmed');
    assert.equal(current?.confirmations, 1n);
    assert.equal((await history('confirmed'))?.confirmationStatus, 'confirmed');
    assert.equal(await history('finalized'), undefined);
    const confirmedTx = await rpc
      .getTransaction(signature, {
        commitment: 'confirmed',
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    assert.equal(confirmedTx?.slot, BigInt(slot));
    assert.equal(
      await rpc
        .getTransaction(signature, {
          commitment: 'finalized',
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
        })
        .send(),
      null,
    );

    while (ledger.slot < slot + FINALIZATION_DEPTH - 1) ledger.advanceSlot();
    assert.equal(await history('finalized'), undefined, 'still 31 slots deep: not finalized');
    assert.equal((await status())?.confirmationStatus, 'confirmed');

    ledger.advanceSlot();
    current = await status();
    assert.equal(current?.confirmationStatus, 'finalized');
    assert.equal(current?.confirmations, null);
    const entry = await history('finalized');
    assert.equal(entry?.confirmationStatus, 'finalized');
    assert.equal(entry?.slot, BigInt(slot));
    assert.equal((await history('confirmed'))?.confirmationStatus, 'finalized');
  });

  test('minContextSlot beyond the commitment slot answers -32016 with contextSlot', async () => {
    const processed = ledger.slot;
    const answer = await raw(server.url, 'getSignaturesForAddress', [
      payer.address,
      { commitment: 'confirmed', minContextSlot: processed },
    ]);
    assert.deepEqual(answer.error, {
      code: -32016,
      message: 'Minimum context slot has not been reached',
      data: { contextSlot: processed - 1 },
    });
    const finalized = await raw(server.url, 'getSignaturesForAddress', [
      payer.address,
      { minContextSlot: processed - 31 },
    ]);
    assert.deepEqual(finalized.error?.data, { contextSlot: processed - 32 });
    const met = await raw(server.url, 'getSignaturesForAddress', [
      payer.address,
      { minContextSlot: processed - 32 },
    ]);
    assert.ok(Array.isArray(met.result));
    const slot = await raw(server.url, 'getSlot', [
      { commitment: 'processed', minContextSlot: processed + 1 },
    ]);
    assert.equal(slot.error?.code, -32016);
  });

  test('a duplicate is refused as AlreadyProcessed while its blockhash lives, and never runs twice', async () => {
    const wire = await signedTransfer(payer, payee.address, 4321n, await latest(rpc));
    const signature = await send(rpc, wire);
    const again = await raw(server.url, 'sendTransaction', [wire, { encoding: 'base64' }]);
    assert.equal(again.error?.code, -32002);
    assert.equal(
      again.error?.message,
      'Transaction simulation failed: This transaction has already been processed',
    );
    assert.equal(
      await send(rpc, wire, true),
      signature,
      'without preflight the signature is answered, nothing runs',
    );
    for (let i = 0; i <= FINALIZATION_DEPTH; i++) ledger.advanceSlot();
    const entries = await rpc.getSignaturesForAddress(payee.address, { commitment: 'finalized' }).send();
    assert.equal(entries.filter((e) => e.signature === signature).length, 1);
  });

  test('a blockhash expires 150 slots after its slot', async () => {
    const lifetime = await latest(rpc);
    const wire = await signedTransfer(payer, payee.address, 777n, lifetime);
    for (let i = 0; i < 151; i++) ledger.advanceSlot();
    const answer = await raw(server.url, 'sendTransaction', [wire, { encoding: 'base64' }]);
    assert.equal(answer.error?.code, -32002);
    assert.equal(answer.error?.message, 'Transaction simulation failed: Blockhash not found');
    assert.equal((answer.error?.data as { err: unknown } | undefined)?.err, 'BlockhashNotFound');
    const valid = await rpc.isBlockhashValid(lifetime.blockhash, { commitment: 'processed' }).send();
    assert.equal(valid.value, false);
  });
});

describe('Solana ledger clock', () => {
  let stop: () => Promise<void>;
  after(() => stop?.());

  test('slots advance on their own and transactions become finalized', async () => {
    const ledger = await startSolanaLedger({ slotMs: 10 });
    stop = ledger.stop;
    const rpc = connect(ledger.url);
    const who = await generateKeyPairSigner();
    const signature = await airdrop(rpc, who.address, 10n ** 9n, 'finalized');
    const [entry] = await rpc
      .getSignaturesForAddress(address(who.address), { commitment: 'finalized' })
      .send();
    assert.equal(entry.signature, signature);
    assert.equal(entry.confirmationStatus, 'finalized');
    const finalized = await rpc.getSlot({ commitment: 'finalized' }).send();
    const later = await until('the finalized slot to move on', async () => {
      const slot = await rpc.getSlot({ commitment: 'finalized' }).send();
      return slot > finalized ? slot : undefined;
    });
    assert.ok(later > finalized);
  });
});
