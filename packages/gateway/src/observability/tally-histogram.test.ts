import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { DURATION_BUCKETS, MethodTally } from './request-tally.ts';
import { TallyHistogram } from './tally-histogram.ts';

const name = 'portico_rpc_duration_seconds';
const help = 'Time inside the gateway';
const observations: [string, number, number | undefined][] = [
  ['eth_call', 0.0001, undefined],
  ['eth_call', 0.0005, undefined], // on a bound: counts in that bucket, as prom-client does
  ['eth_call', 0.003, -32000],
  ['eth_call', 45, undefined], // beyond every bound: +Inf only
  ['eth_chainId', 0.02, undefined],
];

test('a histogram exported from tallies reads exactly as prom-client’s own fed the same observations', async () => {
  const own = new Registry();
  const reference = new Histogram({
    name,
    help,
    labelNames: ['network', 'method'],
    buckets: DURATION_BUCKETS,
    registers: [own],
  });
  const tallies = new Map<string, MethodTally>();
  for (const [method, seconds, errorCode] of observations) {
    reference.observe({ network: 'local', method }, seconds);
    if (!tallies.has(method)) tallies.set(method, new MethodTally());
    tallies.get(method)?.add(seconds, errorCode);
  }
  const tallied = new Registry();
  new TallyHistogram({ name, help, registers: [tallied] }, function* () {
    for (const [method, tally] of tallies) yield [{ network: 'local', method }, tally];
  });

  assert.equal(await tallied.metrics(), await own.metrics());
  assert.deepEqual(await tallied.getMetricsAsJSON(), await own.getMetricsAsJSON());
  assert.equal(tallies.get('eth_call')?.errors.get(-32000), 1);
});
