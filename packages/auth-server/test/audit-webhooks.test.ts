// Audit entries pushed to a webhook, signed with HMAC-SHA256: the receiver checks the signature,
// a failed delivery (500) is retried, and the body holds no token or key.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  type AuthServer,
  loadDevJwtKey,
  startAuthServer,
  verifyWebhookSignature,
} from '@portico/auth-server';
import { tempDir } from '@portico/testkit';
import { CLIENT_ID, loginWithJwt, post } from './helpers.ts';

const SECRET = 'webhook-secret-0123456789abcdef-xyz';

interface Delivery {
  body: string;
  timestamp: string;
  signature: string;
}

describe('audit webhooks', { timeout: 60_000 }, () => {
  const dir = tempDir('portico-auth-webhooks-');
  const deliveries: Delivery[] = [];
  let answered = 0;
  let delivered: (d: Delivery) => void;
  const firstAccepted = new Promise<Delivery>((ok) => {
    delivered = ok;
  });
  let receiver: Server;
  let server: AuthServer;

  before(async () => {
    receiver = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        const d = {
          body,
          timestamp: String(req.headers['x-portico-timestamp']),
          signature: String(req.headers['x-portico-signature']),
        };
        deliveries.push(d);
        // The first delivery fails: the service must retry it.
        if (answered++ === 0) return res.writeHead(500).end();
        res.writeHead(204).end();
        delivered(d);
      });
    });
    await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', () => ok()));
    const { port } = receiver.address() as AddressInfo;
    const key = await loadDevJwtKey(join(dir.path, 'dev-jwt-key.json'));
    server = await startAuthServer({
      dataDir: join(dir.path, 'auth'),
      masterKey: 'a'.repeat(64),
      devJwt: { key },
      auditWebhooks: [{ url: `http://127.0.0.1:${port}/audit`, secret: SECRET }],
    });
  });
  after(async () => {
    await server?.close();
    receiver?.closeAllConnections();
    await new Promise<void>((ok) => receiver?.close(() => ok()));
    dir.cleanup();
  });

  it('delivers a login entry, signed, after retrying a failed delivery; no token or key in it', async () => {
    const idToken = (await post(server.sdkUrl, '/dev/token', { sub: 'wendy' })).body.id_token;
    const auth = await loginWithJwt(server.sdkUrl, idToken);
    const accepted = await firstAccepted;
    assert.equal(deliveries[0].body, accepted.body, 'the failed delivery was retried with the same entry');
    assert.ok(verifyWebhookSignature(SECRET, accepted.timestamp, accepted.body, accepted.signature));
    assert.ok(!verifyWebhookSignature(`${SECRET}!`, accepted.timestamp, accepted.body, accepted.signature));
    assert.ok(
      !verifyWebhookSignature(
        SECRET,
        accepted.timestamp,
        accepted.body.replace('login', 'logon'),
        accepted.signature,
      ),
    );
    const entry = JSON.parse(accepted.body) as {
      seq: number;
      event: string;
      detail: Record<string, unknown>;
    };
    assert.equal(entry.seq, 1);
    assert.equal(entry.event, 'login');
    assert.deepEqual(entry.detail, {
      clientId: CLIENT_ID,
      network: 'sapphire_devnet',
      outcome: 'success',
      verifier: 'jwt',
    });
    for (const secret of [idToken, auth.state.sessionId!, auth.state.privKey!])
      assert.ok(!accepted.body.includes(secret));
  });
});
