import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  generateKeyPairSigner,
  getBase58Decoder,
  type KeyPairSigner,
  lamports,
  type Signature,
} from '@solana/kit';
import { FINALIZATION_DEPTH, Ledger } from '../src/solana/ledger.ts';
import { type RpcServer, startRpcServer } from '../src/solana/server.ts';
import { connect, latest, type Rpc, raw, send, signedTransfer } from './solana-client.ts';

const TRANSFERS = 300;
const PER_SLOT = 8;

// A long history: one airdrop then 300 transfers from `payer`, 8 per slot, all finalized.
describe('Solana ledger getSignaturesForAddress paging', () => {
  let ledger: Ledger;
  let server: RpcServer;
  let rpc: Rpc;
  let payer: KeyPairSigner;
  let payee: KeyPairSigner;
  /** payer's signatures, oldest first. */
  const sent: Signature[] = [];

  before(async () => {
    ledger = await Ledger.open();
    server = await startRpcServer(ledger, 0, () => {});
    rpc = connect(server.url);
    payer = await generateKeyPairSigner();
    payee = await generateKeyPairSigner();
    sent.push(await rpc.requestAirdrop(payer.address, lamports(10n ** 12n)).send());
    await rpc.requestAirdrop(payee.address, lamports(10n ** 9n)).send();
    ledger.advanceSlot();
    for (let i = 0; i < TRANSFERS; i += PER_SLOT) {
      const lifetime = await latest(rpc);
      const count = Math.min(PER_SLOT, TRANSFERS - i);
      const wires = await Promise.all(
        Array.from({ length: count }, (_, k) =>
          signedTransfer(payer, payee.address, BigInt(1000 + i + k), lifetime),
        ),
      );
      for (const wire of wires) sent.push(await send(rpc, wire, true));
      ledger.advanceSlot();
    }
    for (let i = 0; i <= FINALIZATION_DEPTH; i++) ledger.advanceSlot();
  });

  after(async () => {
    await server.close();
    ledger.close();
  });

  const page = (config: Parameters<Rpc['getSignaturesForAddress']>[1]) =>
    rpc.getSignaturesForAddress(payer.address, { commitment: 'finalized', ...config }).send();

  test('the full history comes newest first, finalized, with slots that never increase', async () => {
    const all = await page({});
    assert.equal(all.length, TRANSFERS + 1);
    assert.deepEqual(
      all.map((e) => e.signature),
      [...sent].reverse(),
    );
    for (let i = 1; i < all.length; i++) assert.ok(all[i].slot <= all[i - 1].slot);
    for (const entry of all) {
      assert.equal(entry.confirmationStatus, 'finalized');
      assert.equal(entry.err, null);
      assert.equal(entry.memo, null);
      assert.equal(typeof entry.blockTime, 'bigint');
    }
    assert.deepEqual(Object.keys(all[0]), [
      'signature',
      'slot',
      'err',
      'memo',
      'blockTime',
      'confirmationStatus',
    ]);
  });

  test('paging with before and a limit walks the whole history exactly once', async () => {
    const walked: Signature[] = [];
    let cursor: Signature | undefined;
    for (;;) {
      const entries = await page({ limit: 37, ...(cursor ? { before: cursor } : {}) });
      assert.ok(entries.length <= 37);
      walked.push(...entries.map((e) => e.signature));
      if (entries.length < 37) break;
      cursor = entries[entries.length - 1].signature;
    }
    assert.deepEqual(walked, [...sent].reverse());
  });

  test('until stops before the given signature; before and until bound a window exactly', async () => {
    const newest = [...sent].reverse();
    const untilOld = await page({ until: sent[100] });
    assert.deepEqual(
      untilOld.map((e) => e.signature),
      newest.slice(0, TRANSFERS - 100),
    );
    const window = await page({ before: sent[250], until: sent[200] });
    assert.deepEqual(
      window.map((e) => e.signature),
      sent.slice(201, 250).reverse(),
    );
    const limited = await page({ before: sent[250], until: sent[200], limit: 10 });
    assert.deepEqual(
      limited.map((e) => e.signature),
      sent.slice(240, 250).reverse(),
    );
    assert.deepEqual(await page({ before: sent[0] }), []);
    assert.deepEqual(await page({ before: sent[5], until: sent[5] }), []);
  });

  test('an unknown before gives nothing; an unknown until does not bound', async () => {
    const unknown = getBase58Decoder().decode(new Uint8Array(64).fill(9)) as Signature;
    assert.deepEqual(await page({ before: unknown }), []);
    assert.equal((await page({ until: unknown })).length, TRANSFERS + 1);
  });

  test('limit is honoured from 1 to 1000 and refused outside it', async () => {
    assert.deepEqual(
      (await page({ limit: 1 })).map((e) => e.signature),
      [sent[sent.length - 1]],
    );
    assert.equal((await page({ limit: 1000 })).length, TRANSFERS + 1);
    for (const limit of [0, 1001]) {
      const answer = await raw(server.url, 'getSignaturesForAddress', [payer.address, { limit }]);
      assert.deepEqual(answer.error, { code: -32602, message: 'Invalid limit; max 1000' });
    }
  });

  test('the payee sees the same transfers', async () => {
    const entries = await rpc
      .getSignaturesForAddress(payee.address, { commitment: 'finalized', limit: 1000 })
      .send();
    assert.equal(entries.length, TRANSFERS + 1);
    assert.equal(entries[0].signature, sent[sent.length - 1]);
  });
});
