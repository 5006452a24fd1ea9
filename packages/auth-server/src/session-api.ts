import { verifyStoreMessage } from '@portico/auth/protocol';
import type { AuditLog } from './audit.ts';
import {
  fields,
  hexKey,
  nonEmptyString,
  optional,
  parseBody,
  signedCall,
  string,
  wholeNumber,
} from './body.ts';
import type { Envelope } from './envelope.ts';
import type { Grant } from './grant.ts';
import { HttpError } from './http.ts';
import { openJson } from './login/sealed.ts';
import { requireSecondFactor } from './second-factor.ts';
import { type SessionChains, SessionError, sessionInfo } from './sessions.ts';
import type { AuthStore } from './store.ts';

export interface SessionApiDeps {
  store: AuthStore;
  envelope: Envelope;
  audit: AuditLog;
  chains: SessionChains;
  /** The public key of the user's rebuilt key when MFA is on for the user (it signs second-factor proofs). */
  mfaPublicKey: (userId: string) => Promise<string | undefined>;
}

/** Paths the client library calls from the app's origin. */
export const SESSION_PATHS = [
  '/api/session',
  '/api/session/get',
  '/api/session/invalidate',
  '/api/session/refresh',
  '/api/session/list',
  '/api/session/end',
];

const BODIES = {
  put: fields({ key: hexKey, data: string, signature: string, timeout: wholeNumber(1, 600) }),
  get: fields({ key: hexKey }),
  invalidate: fields({ key: hexKey, signature: string }),
  refresh: signedCall(fields({ newKey: hexKey, data: nonEmptyString })),
  list: signedCall(optional(fields({}))),
  end: signedCall(fields({ id: string })),
};

/** What a signed session call signs: the path and the payload's JSON (as the MFA calls). */
const signedMessage = (path: string, payload: unknown) => () => `${path}:${JSON.stringify(payload ?? {})}`;

const notFound = () => new SessionError(404, 'SESSION_NOT_FOUND', 'Session not found or expired');

/**
 * The session store API. Entries are ECIES ciphertexts named by a public key; writes and deletes are
 * signed by the matching private key (the loginId or sessionId, which only the app holds).
 */
export async function sessionApi(
  { store, envelope, audit, chains, mfaPublicKey }: SessionApiDeps,
  path: string,
  raw: Record<string, unknown>,
  at: number,
): Promise<[number, unknown]> {
  switch (path) {
    case '/api/session': {
      const { key, data, signature, timeout } = parseBody(BODIES.put, raw);
      if (!verifyStoreMessage(key, data, signature))
        throw new HttpError(401, 'BAD_SIGNATURE', 'Bad signature');
      if (!(await store.putSession(key, data, at + timeout * 1000)))
        throw new HttpError(409, 'KEY_IN_USE', 'Key already in use');
      return [201, { ok: true }];
    }
    case '/api/session/get': {
      const { key } = parseBody(BODIES.get, raw);
      const entry = await store.getSessionEntry(key, at);
      if (!entry) throw notFound();
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
      const { key, signature } = parseBody(BODIES.invalidate, raw);
      if (!verifyStoreMessage(key, `invalidate:${key}`, signature))
        throw new HttpError(401, 'BAD_SIGNATURE', 'Bad signature');
      const found = await store.chainOfKey(key);
      const deleted = await store.deleteSession(key);
      // Logout ends every right of the session: its MFA grant goes with it.
      const grantName = `mfa-grant:${key}`;
      const sealedGrant = await store.getSession(grantName, at);
      await store.deleteSession(grantName);
      if (found && !found.rotated) await chains.end(found.chain, at);
      if (!deleted) throw notFound();
      const userId =
        found?.chain.userId ??
        (sealedGrant ? openJson<Grant>(envelope, grantName, sealedGrant).userId : undefined);
      await audit.record('session.revoked', userId, {
        outcome: 'success',
        clientId: found?.chain.clientId,
        by: 'user',
      });
      return [200, { ok: true }];
    }
    case '/api/session/refresh': {
      const { key, payload, signature } = parseBody(BODIES.refresh, raw);
      const chain = await chains.caller(key, signedMessage(path, payload), signature, at);
      const { expiresAt, token } = await chains.renew(chain, payload.newKey, payload.data, at);
      return [
        200,
        { expiresIn: Math.round((expiresAt - at) / 1000), idleTime: Math.round(chain.idleMs / 1000), token },
      ];
    }
    case '/api/session/list': {
      const { key, payload, signature } = parseBody(BODIES.list, raw);
      const chain = await chains.caller(key, signedMessage(path, payload), signature, at);
      const live = await chains.list(chain, at);
      return [200, { sessions: live.map((c) => ({ ...sessionInfo(c), current: c.id === chain.id })) }];
    }
    case '/api/session/end': {
      const { key, payload, signature, proof } = parseBody(BODIES.end, raw);
      const chain = await chains.caller(key, signedMessage(path, payload), signature, at);
      // Signing the user out elsewhere is a right of the whole sign-in: for an MFA user, a session
      // that passed only the first factor may not.
      await requireSecondFactor(
        { store, mfaPublicKey },
        chain,
        { path, key, payloadJson: JSON.stringify(payload), proof },
        at,
      );
      const target = (await chains.list(chain, at)).find((c) => c.id === payload.id);
      if (!target || !(await chains.end(target, at)))
        throw new HttpError(404, 'LISTED_SESSION_NOT_FOUND', 'No such session, or it has ended already');
      await audit.record('session.revoked', chain.userId, {
        outcome: 'success',
        clientId: target.clientId,
        by: 'user',
      });
      return [200, { ok: true }];
    }
    default:
      throw new HttpError(404, 'NOT_FOUND', 'Not found');
  }
}
