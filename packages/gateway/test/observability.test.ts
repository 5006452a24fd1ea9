// Metrics, health and readiness endpoints, the access log and graceful shutdown, against a real anvil.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import pino from 'pino';
import WebSocket from 'ws';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';
import { closedPort, postOnly, remaining, rpc } from './harness.ts';

const SECRET_PASSWORD = 's3cretpassw0rd';
const SECRET_PATH = 'pathkey0123456789';

/**
 * An HTTP relay to anvil that holds every call of one method until the test releases it: a slow
 * upstream whose slowness the test controls (no sleeps).
 */
async function startGatedRelay(target: string, heldMethod: string) {
  let release!: () => void;
  let released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let arrived!: () => void;
  let heldArrived = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server: Server = createServer(
    postOnly(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString('utf8');
      if ((JSON.parse(body) as { method?: string }).method === heldMethod) {
        arrived();
        await released;
      }
      try {
        const answer = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const text = await answer.text();
        response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
      } catch {
        response.destroy();
      }
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    /** Resolves once a held call reached the relay (since the last reset). */
    heldArrived: () => heldArrived,
    release: () => release(),
    reset: () => {
      released = new Promise<void>((resolve) => {
        release = resolve;
      });
      heldArrived = new Promise<void>((resolve) => {
        arrived = resolve;
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Asks until the gateway's head tracker has seen every upstream it can reach (bounded). */
async function untilReady(url: string, want: (body: ReadyBody) => boolean): Promise<ReadyBody> {
  let last: ReadyBody | undefined;
  for (let i = 0; i < 200; i++) {
    const response = await fetch(`${url}/readyz`);
    last = (await response.json()) as ReadyBody;
    if (want(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`readiness never reached the expected state: ${JSON.stringify(last)}`);
}

type ReadyBody = {
  status: string;
  networks: Record<string, { ready: boolean; upstreams: { upstream: number; host: string; head: number }[] }>;
};

function metricValue(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const labelText = line.slice(name.length + 1, line.indexOf('}'));
    const parts = labelText.split(',');
    if (wanted.every((w) => parts.includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('metrics, health, readiness and the access log', () => {
  let anvil: Anvil;
  let gateway: Gateway;
  let key: string;
  let keyId: string;
  let dailyCredits: number;
  let url: string;
  let downPort: number;
  const logLines: Record<string, unknown>[] = [];

  before(async () => {
    anvil = await startAnvil();
    downPort = await closedPort();
    const sink = new Writable({
      write(chunk, _encoding, callback) {
        for (const line of String(chunk).split('\n')) if (line) logLines.push(JSON.parse(line));
        callback();
      },
    });
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'debug',
        networks: [
          { name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url], headPollMs: 100 },
          {
            name: 'down',
            chainId: 'eip155:31338',
            upstreams: [`http://user:${SECRET_PASSWORD}@127.0.0.1:${downPort}/${SECRET_PATH}`],
            headPollMs: 100,
            timeoutMs: 1000,
          },
        ],
      }),
      { logger: pino({ level: 'debug' }, sink) },
    );
    const created = await gateway.keys.create({ name: 'metrics' });
    key = created.key;
    keyId = created.record.id;
    dailyCredits = created.record.dailyCredits;
    url = `${gateway.networks[0].baseUrl}/v3/${key}`;
  });

  after(async () => {
    await gateway?.close();
    await anvil?.stop();
  });

  test('/healthz answers 200 while the process is up', async () => {
    const response = await fetch(`${gateway.url}/healthz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: 'ok' });
  });

  test('/readyz is 503 with per-network detail while a network has no live upstream', async () => {
    const body = await untilReady(gateway.url, (b) => b.networks.local.ready);
    const response = await fetch(`${gateway.url}/readyz`);
    assert.equal(response.status, 503);
    assert.equal(body.status, 'not ready');
    assert.equal(body.networks.down.ready, false);
    assert.equal(body.networks.down.upstreams[0].host, `127.0.0.1:${downPort}`);
    assert.ok(body.networks.local.upstreams[0].head >= 0);
    const text = JSON.stringify(body);
    assert.ok(!text.includes(SECRET_PASSWORD) && !text.includes(SECRET_PATH));
  });

  test('/metrics counts requests, errors, credits and cache hits by network, method and key id', async () => {
    await rpc(url, 'eth_blockNumber');
    await rpc(url, 'eth_blockNumber');
    await rpc(url, 'eth_chainId');
    const last = await rpc(url, 'eth_chainId');
    const unknown = await rpc(url, 'no_suchMethod');
    assert.equal(unknown.body.error?.code, -32601);
    const response = await fetch(`${gateway.url}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await response.text();
    const local = { network: 'local' };
    assert.equal(metricValue(text, 'portico_rpc_requests_total', { ...local, method: 'eth_blockNumber' }), 2);
    assert.equal(metricValue(text, 'portico_rpc_requests_total', { ...local, method: '(other)' }), 1);
    assert.equal(
      metricValue(text, 'portico_rpc_errors_total', { ...local, method: '(other)', code: '-32601' }),
      1,
    );
    assert.equal(
      metricValue(text, 'portico_rpc_duration_seconds_count', { ...local, method: 'eth_chainId' }),
      2,
    );
    assert.ok((metricValue(text, 'portico_cache_hits_total', local) ?? 0) >= 1);
    assert.ok((metricValue(text, 'portico_cache_misses_total', local) ?? 0) >= 1);
    const used = dailyCredits - (remaining(last) ?? dailyCredits);
    assert.equal(metricValue(text, 'portico_credits_charged_total', { ...local, key_id: keyId }), used);
    assert.ok(used > 0);
    assert.equal(metricValue(text, 'portico_upstream_breaker_state', { network: 'local', upstream: '0' }), 0);
    assert.ok(
      (metricValue(text, 'portico_upstream_head', { network: 'local', host: new URL(anvil.url).host }) ??
        -1) >= 0,
    );
    assert.equal(metricValue(text, 'portico_upstream_up', { network: 'down', upstream: '0' }), 0);
    assert.ok((metricValue(text, 'portico_http_responses_total', { status: '200' }) ?? 0) >= 5);
    assert.ok(!text.includes(key), 'the API key never appears in metrics');
    assert.ok(!text.includes(SECRET_PASSWORD) && !text.includes(SECRET_PATH));
    assert.ok(!text.includes('no_suchMethod'), 'unknown method names do not become labels');
  });

  test('one debug access log line per request, with key id and never the key', async () => {
    await rpc(url, 'eth_gasPrice');
    const line = logLines.find((l) => l.msg === 'rpc request' && l.method === 'eth_gasPrice');
    assert.ok(line, 'an access log line for eth_gasPrice');
    assert.equal(line.keyId, keyId);
    assert.equal(line.network, 'local');
    assert.equal(line.status, 200);
    assert.equal(line.transport, 'http');
    assert.equal(typeof line.ms, 'number');
    const all = JSON.stringify(logLines);
    assert.ok(!all.includes(key), 'no log line carries the API key');
    assert.ok(!all.includes(SECRET_PASSWORD) && !all.includes(SECRET_PATH), 'nor upstream credentials');
  });
});

describe('metrics endpoint settings', () => {
  let anvil: Anvil;
  const gateways: Gateway[] = [];
  before(async () => {
    anvil = await startAnvil();
  });
  after(async () => {
    for (const g of gateways) await g.close();
    await anvil?.stop();
  });

  const start = async (extra: Record<string, unknown>) => {
    const gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
        ...extra,
      }),
    );
    gateways.push(gateway);
    return gateway;
  };

  test('with requireAdminToken, /metrics needs the admin bearer token', async () => {
    const gateway = await start({ adminToken: 'admin-token-123', metrics: { requireAdminToken: true } });
    assert.equal((await fetch(`${gateway.url}/metrics`)).status, 401);
    const wrong = await fetch(`${gateway.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
    const right = await fetch(`${gateway.url}/metrics`, {
      headers: { authorization: 'Bearer admin-token-123' },
    });
    assert.equal(right.status, 200);
    assert.match(await right.text(), /portico_rpc_requests_total/);
  });

  test('metrics can be switched off, and requireAdminToken without a token is a config error', async () => {
    const gateway = await start({ metrics: { enabled: false } });
    const response = await fetch(`${gateway.url}/metrics`);
    assert.equal(response.status, 404);
    await response.body?.cancel();
    assert.throws(
      () =>
        parseConfig({
          networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
          metrics: { requireAdminToken: true },
        }),
      /requireAdminToken needs adminToken/,
    );
  });
});

describe('graceful shutdown', () => {
  let anvil: Anvil;
  let relay: Awaited<ReturnType<typeof startGatedRelay>>;
  before(async () => {
    anvil = await startAnvil();
    relay = await startGatedRelay(anvil.url, 'eth_getStorageAt');
  });
  after(async () => {
    await relay?.close();
    await anvil?.stop();
  });

  const start = (shutdownTimeoutMs: number) =>
    startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        shutdownTimeoutMs,
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [relay.url], cache: false }],
      }),
    );
  const slowCall = (url: string) =>
    rpc(url, 'eth_getStorageAt', ['0x0000000000000000000000000000000000000001', '0x0', 'latest']);

  test('a slow request in flight completes while the gateway closes; new connections are refused', async () => {
    relay.reset();
    const gateway = await start(60_000);
    const { key } = await gateway.keys.create({ name: 'slow' });
    const url = `${gateway.networks[0].baseUrl}/v3/${key}`;
    const pending = slowCall(url);
    await relay.heldArrived();
    let closed = false;
    const closing = gateway.close().then(() => {
      closed = true;
    });
    await assert.rejects(fetch(`${gateway.url}/healthz`), 'no new connections once closing');
    assert.equal(closed, false, 'close waits for the request in flight');
    relay.release();
    const reply = await pending;
    assert.equal(reply.status, 200);
    assert.equal(reply.body.result, `0x${'0'.repeat(64)}`);
    await closing;
    assert.equal(closed, true);
  });

  test('open WebSocket connections are closed with 1001 when the gateway closes', async () => {
    const gateway = await start(60_000);
    const { key } = await gateway.keys.create({ name: 'ws' });
    const socket = new WebSocket(`${gateway.networks[0].baseUrl.replace(/^http/, 'ws')}/ws/v3/${key}`);
    await once(socket, 'open');
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }));
    const [answer] = await once(socket, 'message');
    assert.equal(JSON.parse(String(answer)).result, '0x7a69');
    const closedWith = once(socket, 'close');
    await gateway.close();
    const [code] = await closedWith;
    assert.equal(code, 1001);
  });

  test('a request still running at the shutdown timeout is cut and close resolves', async () => {
    relay.reset();
    const gateway = await start(100);
    const { key } = await gateway.keys.create({ name: 'stuck' });
    const url = `${gateway.networks[0].baseUrl}/v3/${key}`;
    const pending = slowCall(url).then(
      () => 'answered',
      () => 'cut',
    );
    await relay.heldArrived();
    await gateway.close();
    assert.equal(await pending, 'cut');
    relay.release();
  });
});
