// HTTPS (and wss://) when the config names a certificate and key: a self-signed certificate made
// here with the openssl CLI, trusted by the test's own undici Agent and ws client.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { tempDir } from '@portico/testkit';
import { Agent, request } from 'undici';
import WebSocket from 'ws';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const skip = hasOpenssl() ? false : 'the openssl CLI is not installed (needed to make a test certificate)';

describe('HTTPS with a configured certificate', { skip }, () => {
  let anvil: Anvil;
  let gateway: Gateway;
  let dir: ReturnType<typeof tempDir>;
  let cert: Buffer;
  let agent: Agent;
  let key: string;

  before(async () => {
    dir = tempDir('portico-gw-tls-');
    const certFile = join(dir.path, 'cert.pem');
    const keyFile = join(dir.path, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        keyFile,
        '-out',
        certFile,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(certFile);
    agent = new Agent({ connect: { ca: cert } });
    anvil = await startAnvil();
    gateway = await startGateway(
      parseConfig({
        port: 0,
        logLevel: 'silent',
        tls: { certFile, keyFile },
        networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
      }),
    );
    key = (await gateway.keys.create({ name: 'tls' })).key;
  });

  after(async () => {
    await gateway?.close();
    await agent?.close();
    await anvil?.stop();
    dir?.cleanup();
  });

  test('the gateway listens on https:// and answers JSON-RPC to a client that trusts the certificate', async () => {
    assert.match(gateway.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(gateway.networks[0].baseUrl, /^https:\/\//);
    const response = await request(`${gateway.networks[0].baseUrl}/v3/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      dispatcher: agent,
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(await response.body.json(), { jsonrpc: '2.0', id: 1, result: '0x7a69' });
    const health = await request(`${gateway.url}/healthz`, { dispatcher: agent });
    assert.equal(health.statusCode, 200);
    await health.body.dump();
  });

  test('a client that does not trust the certificate is refused by TLS', async () => {
    const untrusting = new Agent();
    try {
      await assert.rejects(request(`${gateway.url}/healthz`, { dispatcher: untrusting }));
    } finally {
      await untrusting.close();
    }
  });

  test('wss:// serves the WebSocket endpoint on the same certificate', async () => {
    const socket = new WebSocket(`${gateway.networks[0].baseUrl.replace(/^https/, 'wss')}/ws/v3/${key}`, {
      ca: cert,
    });
    await once(socket, 'open');
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] }));
    const [data] = await once(socket, 'message');
    assert.deepEqual(JSON.parse(String(data)), { jsonrpc: '2.0', id: 7, result: '0x7a69' });
    const closed = once(socket, 'close');
    socket.close();
    await closed;
  });

  test('tls needs both certFile and keyFile', () => {
    assert.throws(
      () =>
        parseConfig({
          tls: { certFile: '/x.pem' },
          networks: [{ name: 'local', chainId: 'eip155:31337', upstreams: [anvil.url] }],
        }),
      /tls needs both certFile and keyFile/,
    );
  });
});
