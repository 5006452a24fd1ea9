import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeliveredLogs, type Log, REORG_WINDOW_BLOCKS, REORG_WINDOW_BYTES } from './delivered-logs.ts';
import { UpstreamHeads } from './reorged-logs.ts';

const hex = (n: number) => `0x${n.toString(16)}`;
const log = (block: number, index: number, fork = 'a', extra: Record<string, unknown> = {}): Log => ({
  blockNumber: hex(block),
  blockHash: `0x${fork}${block.toString(16).padStart(63, '0')}`,
  logIndex: hex(index),
  removed: false,
  ...extra,
});

test('a log is admitted once; the same log again is not', () => {
  const delivered = new DeliveredLogs();
  assert.equal(delivered.admit(log(5, 0)), true);
  assert.equal(delivered.admit(log(5, 1)), true);
  assert.equal(delivered.admit(log(5, 0)), false);
  assert.deepEqual(delivered.heights(), [5]);
});

test('taken back: in chain order (oldest block first), removed: true; admitted once', () => {
  const delivered = new DeliveredLogs();
  for (const l of [log(5, 0), log(6, 0), log(6, 1), log(7, 0)]) delivered.admit(l);
  const removed = delivered.takeBack([6, 7]);
  assert.deepEqual(
    removed.map((l) => [l.blockNumber, l.logIndex, l.removed]),
    [
      ['0x6', '0x0', true],
      ['0x6', '0x1', true],
      ['0x7', '0x0', true],
    ],
  );
  assert.deepEqual(delivered.heights(), [5]);
  for (const l of removed) assert.equal(delivered.admit(l), true, 'our own removal is passed on');
  // The node sending the same removal afterwards (geth does) is not passed on twice.
  assert.equal(delivered.admit(log(7, 0, 'a', { removed: true })), false);
  // The new chain's log at a height taken back is new.
  assert.equal(delivered.admit(log(6, 0, 'b')), true);
});

test('a log beside or below one already sent is a reorg; one sent already or above is not', () => {
  const delivered = new DeliveredLogs();
  delivered.admit(log(5, 0));
  delivered.admit(log(8, 0));
  assert.equal(delivered.conflicts(log(8, 0)), false, 'the same log');
  assert.equal(delivered.conflicts(log(9, 0)), false, 'a new block');
  assert.equal(delivered.conflicts(log(8, 1)), false, 'the same block, another log');
  assert.equal(delivered.conflicts(log(8, 0, 'b')), true, 'another block at a height sent');
  assert.equal(delivered.conflicts(log(7, 0)), true, 'below the newest block sent');
});

test(`kept: the last ${REORG_WINDOW_BLOCKS} blocks, at most ${REORG_WINDOW_BYTES} bytes per connection`, () => {
  const delivered = new DeliveredLogs();
  for (let block = 1; block <= 200; block++) delivered.admit(log(block, 0));
  const heights = delivered.heights();
  assert.equal(heights.length, REORG_WINDOW_BLOCKS);
  assert.equal(heights.at(-1), 200 - REORG_WINDOW_BLOCKS + 1);
  // Two subscriptions of one connection share the bytes: the one that keeps more lets go.
  const kept = { used: 0 };
  const quiet = new DeliveredLogs(kept);
  quiet.admit(log(999, 0));
  const big = new DeliveredLogs(kept);
  const data = `0x${'ab'.repeat(200_000)}`;
  for (let index = 0; index < 30; index++) big.admit(log(1000 + index, 0, 'a', { data }));
  assert.ok(kept.used <= REORG_WINDOW_BYTES, `${kept.used} bytes kept`);
  assert.ok(big.heights().length < 30 && big.heights().length >= 4, `${big.heights().length} blocks kept`);
  assert.equal(big.heights()[0], 1029, 'the newest kept');
  assert.deepEqual(quiet.heights(), [999], 'the other subscription keeps its block');
  big.clear();
  quiet.clear();
  assert.equal(kept.used, 0, 'an ended subscription gives its bytes back');
});

test('a head that does not extend the heads seen is a reorg', () => {
  const heads = new UpstreamHeads(() => Promise.reject(new Error('not asked')));
  const head = (n: number, fork = 'a', parentFork = fork) => ({
    number: hex(n),
    hash: `0x${fork}${n}`,
    parentHash: `0x${parentFork}${n - 1}`,
  });
  assert.equal(heads.see(head(10)), false, 'the first');
  assert.equal(heads.see(head(11)), false, 'its child');
  assert.equal(heads.see(head(11, 'b', 'a')), true, 'another block at 11');
  assert.equal(heads.see(head(12, 'b')), false, 'the new chain goes on');
  assert.equal(heads.see(head(13, 'c', 'x')), true, 'a parent that is not the head seen');
  assert.equal(heads.see(head(12, 'b')), true, 'back to a lower head of another chain');
});
