import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { tempDir } from '@portico/testkit';
import { address, generateKeyPairSigner } from '@solana/kit';
import { type SolanaLedger, startSolanaLedger } from '../src/index.ts';
import { airdrop, connect, latest, send, settled, signedTransfer } from './solana-client.ts';

const SOL = 1_000_000_000n;

describe('Solana ledger persistence', () => {
  const dir = tempDir('portico-solana-');
  let running: SolanaLedger | undefined;
  after(async () => {
    await running?.stop();
    dir.cleanup();
  });

  test('history, balances and genesis survive a restart with the same data dir, with or without the snapshot', async () => {
    running = await startSolanaLedger({ dataDir: dir.path, seed: true, slotMs: 20 });
    const first = running;
    let rpc = connect(first.url);
    const sender = await generateKeyPairSigner();
    const receiver = await generateKeyPairSigner();
    await airdrop(rpc, sender.address, 3n * SOL);
    const transfer = await send(
      rpc,
      await signedTransfer(sender, receiver.address, SOL, await latest(rpc), 'kept'),
    );
    await settled(rpc, transfer, 'confirmed');
    const alice = address(first.devAccounts[0].address);
    const history = async () => ({
      alice: await rpc.getSignaturesForAddress(alice, { commitment: 'confirmed' }).send(),
      sender: await rpc.getSignaturesForAddress(sender.address, { commitment: 'confirmed' }).send(),
      balances: [
        (await rpc.getBalance(alice, { commitment: 'confirmed' }).send()).value,
        (await rpc.getBalance(sender.address, { commitment: 'confirmed' }).send()).value,
        (await rpc.getBalance(receiver.address, { commitment: 'confirmed' }).send()).value,
      ],
    });
    const before = await history();
    const slotBefore = await rpc.getSlot({ commitment: 'processed' }).send();
    await first.stop();
    running = undefined;
    assert.ok(existsSync(join(dir.path, 'accounts.snapshot')));

    for (const withSnapshot of [true, false]) {
      if (!withSnapshot) rmSync(join(dir.path, 'accounts.snapshot'));
      running = await startSolanaLedger({ dataDir: dir.path, seed: true, slotMs: 20 });
      rpc = connect(running.url);
      assert.equal(running.genesisHash, first.genesisHash);
      assert.equal(running.chainId, first.chainId);
      assert.ok(
        (await rpc.getSlot({ commitment: 'processed' }).send()) > slotBefore,
        'slots go on from where they were',
      );
      const now = await history();
      assert.deepEqual(
        now.alice.map((e) => [e.signature, e.slot, e.err, e.memo, e.blockTime]),
        before.alice.map((e) => [e.signature, e.slot, e.err, e.memo, e.blockTime]),
        'the seed is not run twice and the history is unchanged',
      );
      assert.deepEqual(
        now.sender.map((e) => e.signature),
        before.sender.map((e) => e.signature),
      );
      assert.deepEqual(
        now.balances,
        before.balances,
        `balances restored ${withSnapshot ? 'from the snapshot' : 'by replay'}`,
      );
      await running.stop();
      running = undefined;
    }

    // The restored state keeps working: the receiver spends what it got before the restarts.
    running = await startSolanaLedger({ dataDir: dir.path, slotMs: 20 });
    rpc = connect(running.url);
    const spend = await send(
      rpc,
      await signedTransfer(receiver, sender.address, SOL / 2n, await latest(rpc)),
    );
    const status = await settled(rpc, spend, 'confirmed');
    assert.equal(status.err, null);
    assert.equal(
      (await rpc.getBalance(receiver.address, { commitment: 'confirmed' }).send()).value,
      SOL / 2n - 5000n,
    );
  });
});
