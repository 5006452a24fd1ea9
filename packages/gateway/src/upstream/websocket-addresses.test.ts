import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pushAddressesOf, wsAddressesOf } from './websocket-addresses.ts';

test('an upstream’s own address comes first, as ws:// or wss://, with its path, query and credentials', () => {
  assert.deepEqual(wsAddressesOf('http://127.0.0.1:9545'), ['ws://127.0.0.1:9545/']);
  assert.deepEqual(wsAddressesOf('https://eth-mainnet.g.alchemy.com/v2/abcdef123456'), [
    'wss://eth-mainnet.g.alchemy.com/v2/abcdef123456',
  ]);
  assert.deepEqual(wsAddressesOf('https://user:pass@node.example/rpc?token=x'), [
    'wss://user:pass@node.example/rpc?token=x',
  ]);
});

test('port 8545 is also tried on 8546, where geth, reth and Besu serve their WebSocket', () => {
  assert.deepEqual(wsAddressesOf('http://10.0.0.7:8545'), ['ws://10.0.0.7:8545/', 'ws://10.0.0.7:8546/']);
  assert.deepEqual(wsAddressesOf('https://node.example:8545/x'), [
    'wss://node.example:8545/x',
    'wss://node.example:8546/x',
  ]);
});

test('Infura’s and Ankr’s keyed URLs go to their /ws/ paths', () => {
  assert.deepEqual(wsAddressesOf('https://mainnet.infura.io/v3/0123456789abcdef'), [
    'wss://mainnet.infura.io/ws/v3/0123456789abcdef',
  ]);
  assert.deepEqual(wsAddressesOf('https://sepolia.infura.io/v3/k'), ['wss://sepolia.infura.io/ws/v3/k']);
  assert.deepEqual(wsAddressesOf('https://rpc.ankr.com/eth/0123456789abcdef'), [
    'wss://rpc.ankr.com/eth/ws/0123456789abcdef',
  ]);
  assert.deepEqual(wsAddressesOf('https://infura.io/v3/k'), ['wss://infura.io/ws/v3/k']);
  assert.deepEqual(wsAddressesOf('https://rpc.ankr.com/eth/a/b'), ['wss://rpc.ankr.com/eth/ws/a/b']);
  // Not theirs, or without a key: the address as it is.
  assert.deepEqual(wsAddressesOf('https://rpc.ankr.com/eth'), ['wss://rpc.ankr.com/eth']);
  assert.deepEqual(wsAddressesOf('https://rpc.ankr.com/eth/'), ['wss://rpc.ankr.com/eth/']);
  assert.deepEqual(wsAddressesOf('https://infura.io.example/v3/k'), [
    'wss://infura.io.example/v3/k',
    'wss://infura.io.example/ws/v3/k',
  ]);
  assert.deepEqual(wsAddressesOf('https://mainnet.infura.io/other'), ['wss://mainnet.infura.io/other']);
});

test('a `/v3/<key>` URL elsewhere (Portico’s own gateway) is tried as itself, then at `/ws/v3/<key>`', () => {
  assert.deepEqual(wsAddressesOf('https://notinfura.io/v3/k'), [
    'wss://notinfura.io/v3/k',
    'wss://notinfura.io/ws/v3/k',
  ]);
  assert.deepEqual(wsAddressesOf('http://127.0.0.1:8545/local/v3/KEY'), [
    'ws://127.0.0.1:8545/local/v3/KEY',
    'ws://127.0.0.1:8545/local/ws/v3/KEY',
    'ws://127.0.0.1:8546/local/v3/KEY',
  ]);
  assert.deepEqual(wsAddressesOf('http://gw.example/v3/'), ['ws://gw.example/v3/'], 'no key: as it is');
  assert.deepEqual(
    wsAddressesOf('http://gw.example/v3/k/more'),
    ['ws://gw.example/v3/k/more'],
    'not a key’s URL',
  );
});

test('pushed heads: configured wsUpstreams pair one to one, else each upstream’s addresses', () => {
  assert.deepEqual(pushAddressesOf(['http://a:8545', { url: 'https://b.example' }], undefined), [
    ['ws://a:8545/', 'ws://a:8546/'],
    ['wss://b.example/'],
  ]);
  assert.deepEqual(pushAddressesOf(['http://a', 'http://b'], ['ws://x', 'ws://y']), [['ws://x'], ['ws://y']]);
  assert.deepEqual(pushAddressesOf(['http://a', 'http://b'], ['ws://x']), [], 'cannot be paired: polls only');
});
