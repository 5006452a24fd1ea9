// The custom JWT verifier's remote key set: an endpoint that is down, slow or failing is refused with
// a message naming the JWKS (never the endpoint's answer), not as an invalid token. Real HTTP
// servers on port 0, a real SQLite store, real keys.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir } from '@portico/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { SqliteStore } from '../src/store.ts';
import { JwtVerifier } from '../src/verifiers/jwt.ts';
import { VerifierError } from '../src/verifiers/types.ts';

const dir = tempDir('portico-auth-jwks-');
let store: SqliteStore;
const servers: Server[] = [];
const held: ServerResponse[] = [];
before(() => {
  store = new SqliteStore(join(dir.path, 'store'));
});
after(async () => {
  for (const response of held) response.destroy();
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  dir.cleanup();
});

/** A JWKS endpoint answering with `answer`; its URL. */
async function endpoint(answer: (response: ServerResponse) => void): Promise<string> {
  const server = createServer((_request, response) => answer(response));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
}

let users = 0;
async function signed() {
  const keys = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: 'k1', alg: 'ES256' };
  const sub = `user-${++users}`;
  const token = await new SignJWT({ sub })
    .setProtectedHeader({ alg: 'ES256', kid: jwk.kid })
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(keys.privateKey);
  return { jwk, token, sub };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof VerifierError, `expected a VerifierError, got ${String(error)}`);
    return error.message;
  }
  assert.fail('expected the token to be refused');
}

const verifier = (jwksUrl: string) => new JwtVerifier(`remote-${++users}`, { type: 'jwt', jwksUrl }, store);

test('serving keys: a token signed by one of them is accepted', async () => {
  const { jwk, token, sub } = await signed();
  const url = await endpoint((response) => {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  assert.equal((await verifier(url).verify(token)).verifierId, sub);
});

test('down: a clear error naming the JWKS', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as AddressInfo;
  await new Promise((resolve) => closed.close(resolve));
  const { token } = await signed();
  const message = await refusal(verifier(`http://127.0.0.1:${port}/jwks.json`).verify(token));
  assert.equal(message, "Could not fetch the verifier's JWKS: the JWKS endpoint could not be reached");
});

test('answering with an error: the refusal names the JWKS, not what the endpoint said', async () => {
  const { token } = await signed();
  const url = await endpoint((response) => {
    response.statusCode = 500;
    response.end('internal detail of the identity provider');
  });
  const message = await refusal(verifier(url).verify(token));
  assert.match(message, /^Could not fetch the verifier's JWKS: /);
  assert.doesNotMatch(message, /internal detail/);
});

test('slow: the fetch gives up and says so', async () => {
  const { token } = await signed();
  const url = await endpoint((response) => held.push(response));
  const message = await refusal(verifier(url).verify(token));
  assert.match(message, /^Could not fetch the verifier's JWKS: .*timed out/);
});
