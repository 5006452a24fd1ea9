// Sessions that renew themselves and can be ended. A sign-in is a chain of session keys: each
// renewal is signed by the current key and names the next one (made on the device), so the store
// entry moves to a new sessionId and the old one stops working. A key presented again after it was
// rotated away (past a short grace for two tabs renewing at once) means it was copied: the whole
// chain ends and the audit trail says so (refresh-token reuse detection, RFC 9700 §4.14.2).
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import type { SessionInfo as LibrarySessionInfo } from '@portico/auth';
import { encryptJsonTo, verifyStoreMessage } from '@portico/auth/protocol';
import type { AuditLog } from './audit.ts';
import type { Envelope } from './envelope.ts';
import type { Grant } from './grant.ts';
import { HttpError } from './http.ts';
import type { TokenSigner } from './keys.ts';
import { openJson, sealJson } from './login/sealed.ts';
import { markName } from './second-factor.ts';
import type { AuthStore, ChainRow, LiveChain } from './store.ts';

/** A rotated key presented again within this long is a second tab renewing at once, not a copy. */
export const REUSE_GRACE_MS = 30_000;
/** `endsAt` of a chain with no operator cap. */
const NO_CAP = Number.MAX_SAFE_INTEGER;

/** A refused session call with the code the library acts on (the session is gone, renewed, or copied). */
export class SessionError extends HttpError {
  override readonly name: string = 'SessionError';
  declare readonly code: 'SESSION_NOT_FOUND' | 'SESSION_ROTATED' | 'SESSION_REUSED';

  constructor(
    status: number,
    code: 'SESSION_NOT_FOUND' | 'SESSION_ROTATED' | 'SESSION_REUSED',
    message: string,
  ) {
    super(status, code, message);
  }
}

export interface SessionChainsDeps {
  store: AuthStore;
  envelope: Envelope;
  audit: AuditLog;
  signer: TokenSigner;
  /** Absolute cap of a sign-in in seconds (`maxSessionTime`); unset: no cap. */
  maxSessionTime?: number;
}

/** What the library and the admin API see of a session (never a key): the library's type, less `current`. */
export type SessionInfo = Omit<LibrarySessionInfo, 'current'>;

/** A device name as the library sent it: printable, at most 200 characters; else none. */
function deviceName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const name = value
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .trim()
    .slice(0, 200);
  return name || undefined;
}

export function sessionInfo(chain: LiveChain): SessionInfo {
  return {
    id: chain.id,
    clientId: chain.clientId,
    createdAt: chain.createdAt,
    lastUsedAt: chain.lastUsed,
    expiresAt: chain.expiresAt,
    endsAt: chain.endsAt === NO_CAP ? undefined : chain.endsAt,
    device: chain.device,
  };
}

export class SessionChains {
  constructor(private readonly deps: SessionChainsDeps) {}

  /** The expiry of a new sign-in's first session: its idle window, within the operator's cap. */
  firstExpiry(now: number, sessionTime: number): number {
    return Math.min(now + sessionTime * 1000, this.endsAt(now));
  }

  private endsAt(now: number): number {
    const cap = this.deps.maxSessionTime;
    return cap === undefined ? NO_CAP : now + cap * 1000;
  }

  /**
   * Starts the chain of a session just stored under `key`; `claims` are the idToken's (without
   * nonce and times), signed again with each renewal's window. Answers the chain's id.
   */
  async start(
    key: string,
    userId: string,
    clientId: string,
    sessionTime: number,
    now: number,
    claims: Record<string, unknown>,
    device?: unknown,
  ): Promise<string> {
    const id = bytesToHex(randomBytes(16));
    await this.deps.store.createChain({
      id,
      claims: sealJson(this.deps.envelope, `chain-claims:${id}`, claims),
      device: deviceName(device),
      userId,
      clientId,
      currentKey: key,
      idleMs: sessionTime * 1000,
      createdAt: now,
      lastUsed: now,
      endsAt: this.endsAt(now),
    });
    return id;
  }

  /**
   * The chain whose current key signed `message`. A rotated key: within the grace `SESSION_ROTATED`,
   * after it the chain ends (`SESSION_REUSED`, audited).
   */
  async caller(
    key: string,
    message: (key: string) => string,
    signature: string,
    now: number,
  ): Promise<ChainRow> {
    if (!verifyStoreMessage(key, message(key), signature))
      throw new HttpError(401, 'BAD_SIGNATURE', 'Bad signature');
    const found = await this.deps.store.chainOfKey(key);
    if (!found || found.chain.revokedAt !== undefined) {
      throw new SessionError(404, 'SESSION_NOT_FOUND', 'Session not found or expired');
    }
    if (found.rotated) {
      if (now - found.rotated.at <= REUSE_GRACE_MS) {
        throw new SessionError(
          409,
          'SESSION_ROTATED',
          'This session was just renewed: use the new sessionId',
        );
      }
      await this.end(found.chain, now);
      await this.deps.audit.record('session.reused', found.chain.userId, {
        outcome: 'refused',
        clientId: found.chain.clientId,
        reason: 'a sessionId was used after it was renewed',
      });
      throw new SessionError(
        401,
        'SESSION_REUSED',
        'This sessionId was renewed before: it may have been copied, so every session of this sign-in has ended',
      );
    }
    return found.chain;
  }

  /**
   * Renews the caller's session under `newKey` with `data` (the same payload, encrypted by the
   * device to the new key): a new idle window, within the chain's absolute end.
   */
  async renew(
    chain: ChainRow,
    newKey: string,
    data: string,
    now: number,
  ): Promise<{ expiresAt: number; token: string }> {
    const expiresAt = Math.min(now + chain.idleMs, chain.endsAt);
    const { store, envelope } = this.deps;
    const oldKey = chain.currentKey;
    const grantName = `mfa-grant:${oldKey}`;
    const sealedGrant = await store.getSession(grantName, now);
    // A new idToken for the new window, readable only with the new sessionId.
    const claims = openJson<Record<string, unknown>>(envelope, `chain-claims:${chain.id}`, chain.claims);
    const idToken = await this.deps.signer.sign(
      { ...claims, nonce: bytesToHex(randomBytes(16)) },
      chain.clientId,
      Math.max(1, Math.round((expiresAt - now) / 1000)),
    );
    const token = encryptJsonTo(newKey, { idToken });
    if (!(await store.rotateChain(chain.id, oldKey, newKey, data, now, expiresAt, token))) {
      throw new SessionError(404, 'SESSION_NOT_FOUND', 'Session not found or expired');
    }
    // The MFA grant follows the session to its new key.
    await store.deleteSession(grantName);
    if (sealedGrant) {
      const name = `mfa-grant:${newKey}`;
      const grant = openJson<Grant>(envelope, grantName, sealedGrant);
      await store.putSession(name, sealJson(envelope, name, grant), expiresAt);
    }
    return { expiresAt, token };
  }

  /** The live sessions of the caller's user in the caller's app. */
  async list(chain: ChainRow, now: number): Promise<LiveChain[]> {
    return (await this.deps.store.listChains(chain.userId, now)).filter((c) => c.clientId === chain.clientId);
  }

  /** All live sessions of a user (the operator's view). */
  listOfUser(userId: string, now: number): Promise<LiveChain[]> {
    return this.deps.store.listChains(userId, now);
  }

  /** Ends a chain, its MFA grant and its second-factor mark; false when it had ended already. */
  async end(chain: ChainRow, now: number): Promise<boolean> {
    const key = await this.deps.store.revokeChain(chain.id, now);
    if (key === undefined) return false;
    await this.deps.store.deleteSession(`mfa-grant:${key}`);
    await this.deps.store.deleteSession(markName(chain.id));
    return true;
  }
}
