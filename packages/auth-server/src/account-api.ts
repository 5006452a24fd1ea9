// The account page's API (docs/account-page.md): the user's sessions, passkeys, MFA devices and key export, on the
// service's own origin. The app's library asks for a one-time ticket with a signed session call
// (and the MFA proof, for an MFA user: as `endSession`); the page trades the ticket once for its
// own short-lived page token, which every page call carries. Both are random 32 bytes, stored
// only as their SHA-256 and sealed to the sign-in (chain) they act for; when that sign-in ends,
// the page's rights end with it.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { type DeviceDeps, mfaDevicesOf, revokeFromPage } from './account-devices.ts';
import { type ExportDeps, exportKey, exportOfferOf } from './account-export.ts';
import { exportWithFactor } from './account-export-mfa.ts';
import type { AuditDetail, AuditEvent, AuditLog } from './audit.ts';
import { field, fields, nonEmptyString, optional, parseBody, signedCall, string } from './body.ts';
import type { Envelope } from './envelope.ts';
import { HttpError } from './http.ts';
import type { LoginContext } from './login/context.ts';
import { type PasskeyAccount, userHandleOf } from './login/passkey-routes.ts';
import { openJson, sealJson } from './login/sealed.ts';
import type { MfaRecord } from './mfa.ts';
import { requireSecondFactor } from './second-factor.ts';
import { type SessionChains, sessionInfo } from './sessions.ts';
import type { AuthStore, ChainRow, LiveChain } from './store.ts';
import type { VerifierConfig } from './verifiers/config.ts';

/** How long the app's ticket may wait for the page to open. */
export const ACCOUNT_TICKET_SECONDS = 120;
/** How long the page's own token lasts (it never outlives the sign-in it was opened from). */
export const ACCOUNT_PAGE_SECONDS = 15 * 60;

/** The call the library makes from the app's origin (CORS). */
export const ACCOUNT_TICKET_PATH = '/api/account/ticket';
/** The calls of the page itself (same origin). */
export const ACCOUNT_PATHS = [
  ACCOUNT_TICKET_PATH,
  '/api/account/open',
  '/api/account/state',
  '/api/account/sessions/end',
  '/api/account/passkeys/remove',
  '/api/account/devices/revoke',
  '/api/account/export',
];

export interface AccountApiDeps extends ExportDeps, DeviceDeps {
  store: AuthStore;
  envelope: Envelope;
  audit: AuditLog;
  chains: SessionChains;
  verifierConfigs: ReadonlyMap<string, VerifierConfig>;
  /** The public key of the user's rebuilt key when MFA is on for the user (it signs second-factor proofs). */
  mfaPublicKey: (userId: string) => Promise<string | undefined>;
  /** The user's MFA record when MFA is on (the page lists its factor passkey and devices). */
  mfaRecord: (userId: string) => Promise<MfaRecord | undefined>;
  /** The login path's parts: an MFA user's export checks a typed factor as `/api/mfa/factor` does. */
  factorContext: LoginContext;
}

/**
 * What a ticket or page token stands for: one sign-in of one user, and whether the second factor
 * was shown for the ticket (the user had MFA then); false in tokens made before it was recorded.
 */
interface Holder {
  chainId: string;
  userId: string;
  secondFactor?: boolean;
}

const secret = field<string>('64 hex characters', (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v));

const BODIES = {
  ticket: signedCall(optional(fields({}))),
  open: fields({ ticket: secret }),
  state: fields({ token: secret }),
  endSession: fields({ token: secret, id: nonEmptyString }),
  removePasskey: fields({ token: secret, id: string }),
  revokeDevice: fields({ token: secret, deviceId: nonEmptyString }),
  exportKey: fields({
    token: secret,
    password: optional(string),
    backupPhrase: optional(string),
    authenticatorCode: optional(string),
  }),
};

const nameOf = (kind: 'account-ticket' | 'account-page', value: string) =>
  `${kind}:${bytesToHex(sha256(utf8ToBytes(value)))}`;

/** The live sign-in a holder acts for, or undefined once it ended. */
async function liveChain(deps: AccountApiDeps, holder: Holder, now: number): Promise<LiveChain | undefined> {
  return (await deps.chains.listOfUser(holder.userId, now)).find((c) => c.id === holder.chainId);
}

/** The account a sign-in's passkeys belong to (as the passkey routes name it). */
function accountOf(deps: AccountApiDeps, chain: ChainRow): PasskeyAccount {
  const claims = openJson<Record<string, unknown>>(deps.envelope, `chain-claims:${chain.id}`, chain.claims);
  return {
    verifier: String(claims.verifier),
    verifierId: String(claims.verifierId),
    claim: typeof claims.claim === 'string' ? claims.claim : undefined,
  };
}

/** Mints a random secret, stores it (hashed) for `holder` until `ttl` seconds from `now`. */
async function mint(
  deps: AccountApiDeps,
  kind: 'account-ticket' | 'account-page',
  holder: Holder,
  now: number,
  ttl: number,
): Promise<string> {
  const value = bytesToHex(randomBytes(32));
  const name = nameOf(kind, value);
  await deps.store.putSession(name, sealJson(deps.envelope, name, holder), now + ttl * 1000);
  return value;
}

/** The page token's sign-in, still live, and what the token stands for; else 401 `ACCOUNT_PAGE_EXPIRED`. */
async function pageHolder(
  deps: AccountApiDeps,
  token: string,
  now: number,
): Promise<{ chain: LiveChain; holder: Holder }> {
  const name = nameOf('account-page', token);
  const sealed = await deps.store.getSession(name, now);
  const expired = () =>
    new HttpError(
      401,
      'ACCOUNT_PAGE_EXPIRED',
      'This page has expired or its session has ended: open it again',
    );
  if (!sealed) throw expired();
  const holder = openJson<Holder>(deps.envelope, name, sealed);
  const chain = await liveChain(deps, holder, now);
  if (!chain) {
    await deps.store.deleteSession(name);
    throw expired();
  }
  return { chain, holder };
}

const pageCaller = async (deps: AccountApiDeps, token: string, now: number): Promise<LiveChain> =>
  (await pageHolder(deps, token, now)).chain;

/**
 * The page token's sign-in, for a call that changes the account (ends a session, removes a passkey,
 * revokes a device). The page's rights rest on the second factor shown when its ticket was asked
 * for; a ticket asked for before the user had MFA showed none, so once MFA is on that page may only
 * read: 403 `SECOND_FACTOR_REQUIRED`, audited as `refused` under the call's own event.
 */
async function pageActor(
  deps: AccountApiDeps,
  token: string,
  now: number,
  refusal: { event: AuditEvent; detail: AuditDetail },
): Promise<LiveChain> {
  const { chain, holder } = await pageHolder(deps, token, now);
  if (holder.secondFactor !== true && (await deps.mfaPublicKey(chain.userId)) !== undefined) {
    await deps.audit.record(refusal.event, chain.userId, {
      ...refusal.detail,
      outcome: 'refused',
      clientId: chain.clientId,
      reason: 'the page was opened without the second factor',
    });
    throw new HttpError(
      403,
      'SECOND_FACTOR_REQUIRED',
      'This page was opened before two-step verification was on: open it again from the app',
    );
  }
  return chain;
}

/** What the page shows: the user's sessions (every app's) and passkeys, and whether the last may go. */
async function accountState(deps: AccountApiDeps, caller: LiveChain, now: number) {
  const account = accountOf(deps, caller);
  const passkeys = await deps.store.listPasskeys(userHandleOf(deps.envelope, account));
  return {
    sessions: (await deps.chains.listOfUser(caller.userId, now)).map((c) => ({
      ...sessionInfo(c),
      current: c.id === caller.id,
    })),
    passkeys: passkeys.map((p) => ({
      id: p.credentialId,
      createdAt: p.createdAt,
      lastUsedAt: p.lastUsed,
      transports: p.transports,
    })),
    ...mfaParts(await deps.mfaRecord(caller.userId)),
    passkeyOnly: passkeyOnly(deps, account),
    ...(await exportParts(deps, caller, now)),
  };
}

/** The export offer; for `factor`, the typed factors the page may take (`exportFactors`). */
async function exportParts(deps: AccountApiDeps, caller: LiveChain, now: number) {
  const { offer, factors } = await exportOfferOf(deps, caller, now);
  return offer === 'factor' ? { export: offer, exportFactors: factors } : { export: offer };
}

/** The MFA record's parts the page lists. */
const mfaParts = (record: MfaRecord | undefined) => ({
  mfaPasskeys: mfaPasskeysOf(record),
  mfaDevices: mfaDevicesOf(record),
});

/**
 * The passkeys set up as the second factor (`passkeysFactor`): at most one, made on the setup
 * screen when MFA was enabled. Listed only: it holds a share of the key, so removing it would
 * change the account's MFA (docs/account-page.md).
 */
function mfaPasskeysOf(record: MfaRecord | undefined) {
  const passkey = record?.passkey;
  if (!passkey) return [];
  return [
    {
      id: passkey.credentialId,
      createdAt: record.enabledAt,
      lastUsedAt: passkey.lastUsedAt,
      transports: passkey.transports,
    },
  ];
}

/** An account of a passkey verifier has no other way in than its passkeys. */
const passkeyOnly = (deps: AccountApiDeps, account: PasskeyAccount) =>
  deps.verifierConfigs.get(account.verifier)?.type === 'passkey';

export async function accountApi(
  deps: AccountApiDeps,
  path: string,
  raw: Record<string, unknown>,
  now: number,
  /** The client's address: an export's typed factor counts against it too. */
  address: string,
): Promise<[number, unknown]> {
  const { store, envelope, audit, chains } = deps;
  switch (path) {
    case ACCOUNT_TICKET_PATH: {
      const { key, payload, signature, proof } = parseBody(BODIES.ticket, raw);
      const payloadJson = JSON.stringify(payload ?? {});
      const chain = await chains.caller(key, () => `${path}:${payloadJson}`, signature, now);
      // Read before the check: MFA turned on in between must not count as a factor shown.
      const secondFactor = (await deps.mfaPublicKey(chain.userId)) !== undefined;
      // The page can sign the user out everywhere, remove passkeys and revoke devices: a right of
      // the whole sign-in, so an MFA user's session must show the second factor (as `endSession`).
      await requireSecondFactor(deps, chain, { path, key, payloadJson, proof }, now);
      const ticket = await mint(
        deps,
        'account-ticket',
        { chainId: chain.id, userId: chain.userId, secondFactor },
        now,
        ACCOUNT_TICKET_SECONDS,
      );
      return [200, { ticket, expiresIn: ACCOUNT_TICKET_SECONDS }];
    }
    case '/api/account/open': {
      const { ticket } = parseBody(BODIES.open, raw);
      const name = nameOf('account-ticket', ticket);
      const sealed = await store.getSession(name, now);
      // Taken once: a ticket seen twice (a copied URL) opens nothing the second time.
      if (!sealed || !(await store.deleteSession(name))) {
        throw new HttpError(
          401,
          'ACCOUNT_TICKET_INVALID',
          'This link to the account page is unknown, used or expired: open the page from the app again',
        );
      }
      const holder = openJson<Holder>(envelope, name, sealed);
      const chain = await liveChain(deps, holder, now);
      if (!chain) {
        throw new HttpError(401, 'ACCOUNT_PAGE_EXPIRED', 'The session this page was opened from has ended');
      }
      const ttl = Math.max(1, Math.min(ACCOUNT_PAGE_SECONDS, Math.floor((chain.endsAt - now) / 1000)));
      const token = await mint(deps, 'account-page', holder, now, ttl);
      await audit.record('account.opened', chain.userId, { outcome: 'success', clientId: chain.clientId });
      return [200, { token, expiresIn: ttl }];
    }
    case '/api/account/state': {
      const { token } = parseBody(BODIES.state, raw);
      const caller = await pageCaller(deps, token, now);
      return [200, await accountState(deps, caller, now)];
    }
    case '/api/account/sessions/end': {
      const { token, id } = parseBody(BODIES.endSession, raw);
      const caller = await pageActor(deps, token, now, { event: 'session.revoked', detail: {} });
      const target = (await chains.listOfUser(caller.userId, now)).find((c) => c.id === id);
      if (!target || !(await chains.end(target, now)))
        throw new HttpError(404, 'LISTED_SESSION_NOT_FOUND', 'No such session, or it has ended already');
      await audit.record('session.revoked', caller.userId, {
        outcome: 'success',
        clientId: target.clientId,
        by: 'user',
      });
      // Ending the page's own sign-in ends the page too.
      if (target.id === caller.id) {
        await store.deleteSession(nameOf('account-page', token));
        return [200, { ok: true, signedOut: true }];
      }
      return [200, { ok: true, ...(await accountState(deps, caller, now)) }];
    }
    case '/api/account/passkeys/remove': {
      const { token, id } = parseBody(BODIES.removePasskey, raw);
      const caller = await pageActor(deps, token, now, {
        event: 'passkey.removed',
        detail: { credential: id },
      });
      const account = accountOf(deps, caller);
      const userHandle = userHandleOf(envelope, account);
      const passkeys = await store.listPasskeys(userHandle);
      if (!passkeys.some((p) => p.credentialId === id))
        throw new HttpError(404, 'PASSKEY_NOT_FOUND', 'This account has no such passkey');
      if (passkeyOnly(deps, account) && passkeys.length === 1) {
        await audit.record('passkey.removed', caller.userId, {
          outcome: 'refused',
          clientId: caller.clientId,
          credential: id,
          reason: 'the last way to sign in',
        });
        throw new HttpError(
          409,
          'LAST_PASSKEY',
          'This is the only way to sign in to this account: add another passkey before removing it',
        );
      }
      if (!(await store.deletePasskey(id, userHandle)))
        throw new HttpError(404, 'PASSKEY_NOT_FOUND', 'This account has no such passkey');
      await audit.record('passkey.removed', caller.userId, {
        outcome: 'success',
        clientId: caller.clientId,
        credential: id,
        by: 'user',
      });
      return [200, { ok: true, ...(await accountState(deps, caller, now)) }];
    }
    case '/api/account/devices/revoke': {
      const { token, deviceId } = parseBody(BODIES.revokeDevice, raw);
      const caller = await pageActor(deps, token, now, { event: 'mfa.device.revoked', detail: { deviceId } });
      await revokeFromPage(deps, caller, deviceId);
      return [200, { ok: true, ...(await accountState(deps, caller, now)) }];
    }
    case '/api/account/export': {
      const { token, ...factor } = parseBody(BODIES.exportKey, raw);
      const caller = await pageCaller(deps, token, now);
      if ((await exportOfferOf(deps, caller, now)).offer !== 'factor')
        return [200, { privKey: await exportKey(deps, caller, now) }];
      // The typed factor is the fresh second factor; acting on the account is still the page's right.
      await pageActor(deps, token, now, { event: 'key.exported', detail: {} });
      return [200, { privKey: await exportWithFactor(deps.factorContext, caller, factor, address) }];
    }
    default:
      throw new HttpError(404, 'NOT_FOUND', 'Not found');
  }
}
