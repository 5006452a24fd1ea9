import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonResult } from '../rpc/json-result.ts';
import { MemoryResponseCache } from './memory-response-cache.ts';
import type { CachedReply } from './response-cache.ts';

const reply = (n: number): CachedReply => ({ reply: { ok: true, result: JsonResult.ofValue(n) }, block: n });
const has = (cache: MemoryResponseCache, key: string) => cache.get(key) !== undefined;

test('a full cache evicts its oldest entry that was not read since it was stored', () => {
  const cache = new MemoryResponseCache(3);
  for (const key of ['a', 'b', 'c']) cache.set(key, reply(1), true);
  assert.ok(has(cache, 'a')); // read: spared once
  cache.set('d', reply(2), true);
  assert.equal(cache.size, 3);
  assert.equal(cache.get('b'), undefined, 'b, the oldest unread entry, went');
  assert.ok(has(cache, 'a') && has(cache, 'c') && has(cache, 'd'));
});

test('an entry spared once goes when it is not read again; the size never passes the bound', () => {
  const cache = new MemoryResponseCache(3);
  for (const key of ['a', 'b', 'c']) cache.set(key, reply(1), true);
  for (const key of ['a', 'b', 'c']) cache.get(key); // every entry read
  cache.set('d', reply(2), true);
  assert.equal(cache.size, 3, 'still evicts when every entry was read');
  cache.set('e', reply(3), true);
  cache.set('f', reply(4), true);
  assert.equal(cache.size, 3);
  assert.ok(has(cache, 'f') && has(cache, 'e'), 'the newest entries stay');
});

test('a hit answers the stored reply; an expired unfinalized entry is a miss', () => {
  const cache = new MemoryResponseCache(10, 1000);
  cache.set('final', reply(7), true, 0);
  cache.set('moving', reply(8), false, 0);
  const hit = cache.get('final', 5000)?.reply;
  assert.deepEqual(hit?.ok && hit.result.value, 7);
  assert.ok(cache.get('moving', 500));
  assert.equal(cache.get('moving', 1000), undefined);
  assert.equal(cache.hits, 2);
  assert.equal(cache.misses, 1);
});
