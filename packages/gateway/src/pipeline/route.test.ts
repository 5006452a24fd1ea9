import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Network } from '../network.ts';
import { routeRpc } from './route.ts';

const network = (name: string, basePath: string, host?: string) => ({ name, basePath, host }) as Network;
const local = network('local', '/local');
const nested = network('nested', '/local/eu');
const mainnet = network('mainnet', '', 'eth.example.com');
const routed = (route: ReturnType<typeof routeRpc>) =>
  typeof route === 'object' ? [route.network.name, route.key] : route;

test('the longest base path followed by /v3 names the network; the next segment is the key', () => {
  const networks = [local, nested];
  assert.deepEqual(routed(routeRpc(networks, undefined, '/local/v3/abc')), ['local', 'abc']);
  assert.deepEqual(routed(routeRpc(networks, undefined, '/local/eu/v3/abc')), ['nested', 'abc']);
  assert.deepEqual(routed(routeRpc(networks, undefined, '/local/v3/abc/')), ['local', 'abc']);
  assert.deepEqual(routed(routeRpc(networks, undefined, '/local/v3')), ['local', undefined]);
  assert.deepEqual(routed(routeRpc(networks, undefined, '/local/v3/')), ['local', undefined]);
  assert.deepEqual(routed(routeRpc(networks, undefined, '/local/v3//')), ['local', undefined]);
  assert.deepEqual(routed(routeRpc(networks, undefined, '/local/v3/a%62c')), ['local', 'abc']);
  assert.deepEqual(routed(routeRpc(networks, undefined, '/local/v3/a%zz')), ['local', 'a%zz']);
});

test('a path that is not under a base path is not routed; an RPC-looking one names no network', () => {
  const networks = [local];
  assert.equal(routeRpc(networks, undefined, '/local/v3abc'), undefined);
  assert.equal(routeRpc(networks, undefined, '/other/v3/abc'), 'no-network');
  assert.equal(routeRpc(networks, undefined, '/localv3/abc'), undefined);
  assert.equal(routeRpc(networks, undefined, '/healthz'), undefined);
});

test('a network that owns a host answers there at its own path; only there; the others stay reachable by path on other hosts', () => {
  const networks = [local, mainnet];
  assert.deepEqual(routed(routeRpc(networks, 'ETH.example.com:8443', '/v3/k')), ['mainnet', 'k']);
  assert.equal(routeRpc(networks, 'eth.example.com', '/local/v3/k'), 'no-network');
  assert.deepEqual(routed(routeRpc(networks, 'other.example.com', '/local/v3/k')), ['local', 'k']);
  assert.equal(routeRpc(networks, 'other.example.com', '/v3/k'), 'no-network');
});
