import { verifyStoreMessage } from '@portico/auth';
import type { AuditLog } from './audit.ts';
import type { Envelope } from './envelope.ts';
import type { Grant } from './grant.ts';
import { HttpError } from './http.ts';
import { openJson } from './login/sealed.ts';
import { type SessionChains, sessionInfo } from './sessions.ts';
import type { AuthStore } from './store.ts';

export interface SessionApiDeps {
  store: AuthStore;
  envelope: Envelope;
  audit: AuditLog;
  chains: SessionChains;
}

/** An uncompressed secp256k1 public key in hex: the name of a session or parked login request. */
const HEX_KEY = /^04[0-9a-f]{128}$/;

/** Paths the client library calls from the app's origin. */
export const SESSION_PATHS = [
  '/api/session',
  '/api/session/get',
  '/api/session/invalidate',
  '/api/session/refresh',
  '/api/session/list',
  '/api/session/end',
];

/** What a signed session call signs: the path and the payload's JSON (as the MFA calls). */
const signedCall = (path: string, payload: unknown) => () => `${path}:${JSON.stringify(payload ?? {})}`;

/**
 * The session store API. Entries are ECIES ciphertexts named by a public key; writes and deletes are
 * signed by the matching private key (the loginId or sessionId, which only the app holds).
 */
export async function sessionApi(
  { store, envelope, audit, chains }: SessionApiDeps,
  path: string,
  body: Record<string, unknown>,
  at: number,
): Promise<[number, unknown]> {
  switch (path) {
    case '/api/session': {
      const { key, data, signature, timeout } = body;
      if (typeof key !== 'string' || !HEX_KEY.test(key))
        throw new HttpError(400, 'key must be an uncompressed public key (hex)');
      if (typeof data !== 'string' || typeof signature !== 'string')
        throw new HttpError(400, 'data and signature are required');
      if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > 600) {
        throw new HttpError(400, 'timeout must be 1 to 600 seconds');
      }
      if (!verifyStoreMessage(key, data, signature)) throw new HttpError(401, 'Bad signature');
      if (!(await store.putSession(key, data, at + timeout * 1000)))
        throw new HttpError(409, 'Key already in use');
      return [201, { ok: true }];
    }
    case '/api/session/get': {
      const key = body.key;
      if (typeof key !== 'string' || !HEX_KEY.test(key))
        throw new HttpError(400, 'key must be an uncompressed public key (hex)');
      const entry = await store.getSessionEntry(key, at);
      if (!entry) return [404, { error: 'Session not found or expired' }];
      // Seconds left by the service's clock: the library sets its own deadline from it, so clocks
      // that disagree do not shorten or stretch the session. A renewable session (a sign-in's) also
      // says its idle window, which the library renews at half of.
      // A renewed session's fresh idToken comes beside the data (encrypted to the same key).
      const chain = await store.chainOfKey(key);
      const current = chain && !chain.rotated ? chain.chain : undefined;
      return [
        200,
        {
          data: entry.data,
          expiresIn: Math.max(0, Math.round((entry.expiresAt - at) / 1000)),
          idleTime: current && Math.round(current.idleMs / 1000),
          token: current?.token,
        },
      ];
    }
    case '/api/session/invalidate': {
      const { key, signature } = body;
      if (typeof key !== 'string' || !HEX_KEY.test(key) || typeof signature !== 'string') {
        throw new HttpError(400, 'key and signature are required');
      }
      if (!verifyStoreMessage(key, `invalidate:${key}`, signature)) throw new HttpError(401, 'Bad signature');
      const found = await store.chainOfKey(key);
      const deleted = await store.deleteSession(key);
      // Logout ends every right of the session: its MFA grant goes with it.
      const grantName = `mfa-grant:${key}`;
      const sealedGrant = await store.getSession(grantName, at);
      await store.deleteSession(grantName);
      if (found && !found.rotated) await chains.end(found.chain, at);
      if (deleted) {
        const userId =
          found?.chain.userId ??
          (sealedGrant ? openJson<Grant>(envelope, grantName, sealedGrant).userId : undefined);
        await audit.record('session.revoked', userId, {
          outcome: 'success',
          clientId: found?.chain.clientId,
          by: 'user',
        });
      }
      return deleted ? [200, { ok: true }] : [404, { error: 'Session not found or expired' }];
    }
    case '/api/session/refresh': {
      const { key, payload, signature } = body;
      const chain = await chains.caller(key, signedCall(path, payload), signature, at);
      const { newKey, data } = (payload ?? {}) as Record<string, unknown>;
      const { expiresAt, token } = await chains.renew(chain, newKey, data, at);
      return [
        200,
        { expiresIn: Math.round((expiresAt - at) / 1000), idleTime: Math.round(chain.idleMs / 1000), token },
      ];
    }
    case '/api/session/list': {
      const { key, payload, signature } = body;
      const chain = await chains.caller(key, signedCall(path, payload), signature, at);
      const live = await chains.list(chain, at);
      return [200, { sessions: live.map((c) => ({ ...sessionInfo(c), current: c.id === chain.id })) }];
    }
    case '/api/session/end': {
      const { key, payload, signature } = body;
      const chain = await chains.caller(key, signedCall(path, payload), signature, at);
      const id = (payload as Record<string, unknown> | undefined)?.id;
      if (typeof id !== 'string')
        throw new HttpError(400, 'payload.id is required (a session id from the list)');
      const target = (await chains.list(chain, at)).find((c) => c.id === id);
      if (!target || !(await chains.end(target, at))) return [404, { error: 'Session not found or expired' }];
      await audit.record('session.revoked', chain.userId, {
        outcome: 'success',
        clientId: target.clientId,
        by: 'user',
      });
      return [200, { ok: true }];
    }
    default:
      throw new HttpError(404, 'Not found');
  }
}
