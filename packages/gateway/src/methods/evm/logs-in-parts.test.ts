import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpUpstream } from '../../upstream/http-upstream.ts';
import { UpstreamPool } from '../../upstream/upstream-pool.ts';
import { LogsRanges, refusesRange } from './logs-in-parts.ts';

test('the ways nodes and providers refuse a range are recognised; other errors are not', () => {
  for (const message of [
    'query returned more than 10000 results',
    'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range',
    'exceed maximum block range: 5000',
    'block range is too wide',
    'eth_getLogs is limited to a 10,000 range',
    'block range too large: at most 5 blocks',
    'Query exceeds max results 20000, retry with the range 100-200',
    'limit exceeded',
    'range too large',
    'the range is big',
    'exceed max range',
    'filter matches more than 10000 logs',
  ]) {
    assert.ok(refusesRange(message), message);
  }
  for (const message of ['invalid params', 'unknown block', 'execution reverted', 'header not found']) {
    assert.equal(refusesRange(message), false, message);
  }
});

test('each upstream’s range starts at maxLogsBlockRange and halves, down to one block, on its own', () => {
  const pool = new UpstreamPool([
    new HttpUpstream('http://127.0.0.1:9/a'),
    new HttpUpstream('http://127.0.0.1:9/b'),
  ]);
  const [a, b] = pool.members;
  const ranges = new LogsRanges(100);
  ranges.narrow(a, 100);
  assert.equal(ranges.of(a), 50);
  ranges.narrow(a, 100);
  assert.equal(ranges.of(a), 50, 'parts refused at once narrow it once');
  ranges.narrow(a, 20);
  assert.equal(ranges.of(a), 10, 'half of what it refused when that was narrower');
  assert.equal(ranges.of(b), 100, 'the other upstream keeps its own');
  for (let i = 0; i < 10; i++) ranges.narrow(a, ranges.of(a));
  assert.equal(ranges.of(a), 1);
});
