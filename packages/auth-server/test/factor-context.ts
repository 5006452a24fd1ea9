// A login context of real parts over the SQLite store (envelope, keys, attempt limits, audit, JWT
// verifiers with local keys), for the fast tests of the factor modules: no PostgreSQL, Redis or
// HTTP. `factorCall` runs the service's own `/api/mfa/factor` route with a session's MFA grant, so
// a test sees what a factor's answer does to the attempt counts and the audit trail.
import { randomBytes } from 'node:crypto';
import type { MfaFactor } from '@portico/auth';
import { type KeyShare, randomPrivKey, signStoreMessage, storeKeyOf } from '@portico/auth/protocol';
import { tempDir } from '@portico/testkit';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { AttemptLimiter, type AttemptLimits, addressSubject, userSubject } from '../src/attempts.ts';
import { AuditLog } from '../src/audit.ts';
import { Envelope } from '../src/envelope.ts';
import { FACTORS } from '../src/factors/index.ts';
import type { Grant } from '../src/grant.ts';
import { KeyService, TokenSigner } from '../src/keys.ts';
import { type Answer, type LoginContext, loginContext } from '../src/login/context.ts';
import { mfaRoutes } from '../src/login/mfa-routes.ts';
import { sealJson } from '../src/login/sealed.ts';
import type { MfaRecord, SetupOutput } from '../src/mfa.ts';
import { SessionChains } from '../src/sessions.ts';
import { SqliteStore } from '../src/store/sqlite.ts';
import { JwtVerifier } from '../src/verifiers/jwt.ts';

/** Small limits: the third failure in a row starts a wait. */
export const LIMITS: AttemptLimits = {
  failureFactor: 3,
  waitIncrementSeconds: 10,
  maxWaitSeconds: 45,
  quickFailureMs: 0,
  quickFailureWaitSeconds: 5,
  resetAfterSeconds: 3600,
};

/** A JWT issuer with a local key (the verifier holds its public JWK: nothing fetched). */
export interface LocalIssuer {
  sign(sub: string, claims?: Record<string, unknown>): Promise<string>;
}

export interface FactorHarness {
  ctx: LoginContext;
  store: SqliteStore;
  /** The clock of the attempt limits and the audit; tests move it. */
  clock: { now: number };
  /** JWT verifiers by name, each with its own issuer. */
  issuers: Record<string, LocalIssuer>;
  /** A session with an MFA grant; its id signs `factorCall`. */
  session(grant: Grant): Promise<string>;
  /** `/api/mfa/factor` with `payload`, as the session's library sends it, from `address`. */
  factorCall(sessionId: string, payload: Record<string, unknown>, address?: string): Promise<Answer>;
  /** Failures counted against the user and against the address. */
  failures(userId: string, address?: string): Promise<{ user: number; address: number }>;
  /** The `mfa.factor` / `attempts.locked` audit entries of a user, details parsed. */
  audit(userId: string): Promise<{ event: string; detail: Record<string, unknown> }[]>;
  /**
   * MFA enabled for `userId` through `MfaStore.enable` with the registry's modules: the key, the
   * record as stored, and what left the service once.
   */
  enable(
    userId: string,
    factors: MfaFactor[],
    input?: { password?: string; social?: { verifier: string; id: string } },
  ): Promise<{ key: string; record: MfaRecord; out: SetupOutput }>;
  close(): Promise<void>;
}

export const ADDRESS = '192.0.2.10';
const T0 = Date.UTC(2026, 0, 1);

async function localIssuer(): Promise<{ issuer: LocalIssuer; jwk: Awaited<ReturnType<typeof exportJWK>> }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = randomBytes(4).toString('hex');
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  return {
    jwk,
    issuer: {
      sign(sub, claims = {}) {
        const now = Math.floor(Date.now() / 1000);
        return new SignJWT({ jti: randomBytes(12).toString('hex'), sub, ...claims })
          .setProtectedHeader({ alg: 'ES256', kid })
          .setIssuedAt(now)
          .setExpirationTime(now + 600)
          .sign(privateKey);
      },
    },
  };
}

/** JWT verifiers named `verifiers` (verifier id: `sub`), each trusting its own local issuer. */
export async function factorHarness(verifiers: string[] = []): Promise<FactorHarness> {
  const dir = tempDir('portico-factor-');
  const store = new SqliteStore(dir.path);
  const envelope = new Envelope(randomBytes(32));
  const clock = { now: T0 };
  const now = () => clock.now;
  const log = () => {};
  const audit = new AuditLog(store, now, log);
  const signer = await TokenSigner.load(store, envelope, 'http://127.0.0.1');
  const issuers: Record<string, LocalIssuer> = {};
  const jwtVerifiers = new Map<string, JwtVerifier>();
  for (const name of verifiers) {
    const { issuer, jwk } = await localIssuer();
    issuers[name] = issuer;
    jwtVerifiers.set(
      name,
      new JwtVerifier(name, { type: 'jwt', keys: [jwk], verifierIdField: 'sub' }, store),
    );
  }
  const ctx = loginContext({
    store,
    envelope,
    keyService: new KeyService(store, envelope),
    signer,
    verifierConfigs: new Map(),
    jwtVerifiers,
    oidcVerifiers: new Map(),
    devLogin: false,
    sdkUrl: 'http://127.0.0.1/sdk',
    now,
    log,
    attempts: new AttemptLimiter(store, LIMITS, now),
    audit,
    chains: new SessionChains({ store, envelope, audit, signer }),
    exportPolicy: new Map(),
  });
  const route = mfaRoutes['/api/mfa/factor']!;
  return {
    ctx,
    store,
    clock,
    issuers,
    async session(grant) {
      const sessionId = randomPrivKey();
      const name = `mfa-grant:${storeKeyOf(sessionId)}`;
      await store.putSession(name, sealJson(envelope, name, grant), T0 + 86_400_000);
      return sessionId;
    },
    factorCall(sessionId, payload, address = ADDRESS) {
      const path = '/api/mfa/factor';
      const body = {
        key: storeKeyOf(sessionId),
        payload,
        signature: signStoreMessage(sessionId, `${path}:${JSON.stringify(payload)}`),
      };
      return route(ctx, body, path, { address });
    },
    async failures(userId, address = ADDRESS) {
      return {
        user: (await store.getAttempts(userSubject(userId)))?.failures ?? 0,
        address: (await store.getAttempts(addressSubject(address)))?.failures ?? 0,
      };
    },
    async audit(userId) {
      const rows = await store.readAudit({ userId });
      return rows.map((r) => ({ event: r.event, detail: JSON.parse(r.detail) as Record<string, unknown> }));
    },
    async enable(userId, factors, input = {}) {
      const key = randomPrivKey();
      const out = await ctx.mfaStore.enable(
        userId,
        key,
        'main-verifier',
        { factors, dappShare: false, clientId: 'client-1', ...input },
        FACTORS,
      );
      const record = await ctx.mfaStore.load(userId);
      if (!record) throw new Error('no record after enable');
      return { key, record, out };
    },
    async close() {
      await store.close();
      dir.cleanup();
    },
  };
}

/** The share of an answer of `/api/mfa/factor`. */
export function shareOf(answer: Answer): KeyShare {
  const [status, body] = answer;
  if (status !== 200) throw new Error(`status ${status}`);
  return (body as { share: KeyShare }).share;
}
