// The end of every login: keys, idToken, the encrypted session under a new sessionId, the result
// URL. MFA slots in here, between the identity and the session.
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import {
  type AuthUserInfo,
  DEFAULT_MFA_SETTINGS,
  type LoginRequest,
  type MfaFactor,
  type MfaSessionData,
  type SessionPayload,
} from '@portico/auth';
import {
  ed25519PublicKey,
  encryptJsonTo,
  mfaPrompt,
  ownValue,
  randomPrivKey,
  secp256k1PublicKey,
  setupOrder,
  storeKeyOf,
} from '@portico/auth/protocol';
import type { AuthenticatorSecret } from '../authenticator.ts';
import { FACTORS } from '../factors/index.ts';
import { type DerivedKeys, KeyService, type Wallet, walletsFor } from '../keys.ts';
import { accountOf, type PublicKeyPair } from '../login-event.ts';
import type { PasskeyCredential } from '../mfa.ts';
import { type MfaRecord, type SetupOutput, sessionMfa } from '../mfa.ts';
import type { Identity } from '../verifiers/types.ts';
import { CONFIRMABLE, parkConfirmStep } from './confirm-step.ts';
import {
  type ConfirmMfa,
  FLOW_TTL_MS,
  type Grant,
  type LoginContext,
  type PendingMfa,
  type PendingState,
  type RecoverMfa,
  type ResolvedProvider,
} from './context.ts';
import { isCustomVerifier, resultUrl } from './request.ts';
import { sealJson } from './sealed.ts';

/** The factors a user chose on the MFA setup screen, checked. */
export interface SetupRequest {
  factors: MfaFactor[];
  password?: string;
  social?: { verifier: string; id: string };
  authenticator?: AuthenticatorSecret;
  passkey?: PasskeyCredential;
}

export type Completed =
  | { sessionId: string; redirect: string; setup?: SetupOutput }
  | { mfa: PendingMfa | RecoverMfa | ConfirmMfa };

/** The MFA setup step of a login: the app's factors in setup order. */
export function pendingFor(
  ctx: LoginContext,
  request: LoginRequest,
  target: ResolvedProvider,
  skippable: boolean,
): PendingMfa {
  return {
    step: 'setup',
    skippable,
    factors: setupOrder(request.options.mfaSettings ?? DEFAULT_MFA_SETTINGS),
    dappShare: isCustomVerifier(ctx, target),
  };
}

/** The idToken's wallets from public keys recorded when MFA was enabled (the service has no key then). */
function walletsFromRecord(record: MfaRecord, clientId: string, curve: 'secp256k1' | 'ed25519'): Wallet[] {
  const pick = (k: { secp: string; ed: string }) => (curve === 'ed25519' ? k.ed : k.secp);
  const app = ownValue(record.appKeys, clientId);
  const out: Wallet[] = [];
  if (app) out.push({ public_key: pick(app), type: 'web3auth_app_key', curve });
  out.push({
    public_key: pick({ secp: record.publicKey, ed: record.edPublicKey }),
    type: 'web3auth_threshold_key',
    curve,
  });
  return out;
}

/**
 * Derives the keys, signs the idToken, stores the encrypted state under a new sessionId. With MFA
 * on, the session carries the service's share instead of the keys. A user without MFA may be
 * stopped here for the setup screen (per mfaLevel); `after` resumes such a login.
 */
export async function complete(
  ctx: LoginContext,
  loginId: string,
  request: LoginRequest,
  target: ResolvedProvider,
  identity: Identity,
  after?: { setup?: SetupRequest; skipped?: true },
  page = false,
): Promise<Completed> {
  const { store, envelope, keyService, signer, now, log } = ctx.deps;
  const { mfaStore } = ctx;
  const { clientId } = request.options;
  // The app's sessionTime, within the service's maxSessionTime (the library warns when it applies).
  const sessionTime = Math.min(request.options.sessionTime ?? 86400, ctx.deps.maxSessionTime ?? Infinity);
  const curve = request.params.curve ?? 'secp256k1';
  const scope = keyService.scope(request.options.network, identity.claim);
  const userId = KeyService.idOf(target.keyVerifier, identity.verifierId, scope);
  const record = await mfaStore.load(userId);
  let keys: DerivedKeys | undefined;
  let mfa: MfaSessionData | undefined;
  let wallets: Wallet[];
  let setup: SetupOutput | undefined;
  let dappShare = '';
  if (record) {
    // MFA on: whatever mfaLevel says, the key needs a second factor now.
    mfa = sessionMfa(record, request.mfa?.deviceId);
    wallets = walletsFromRecord(record, clientId, curve);
  } else {
    if (!after) {
      const count = await mfaStore.countLogin(userId);
      const p = mfaPrompt(request.params.mfaLevel ?? 'default', count, !!request.options.mfaSettings);
      if (p.prompt) {
        const pending: PendingState = {
          provider: target.provider,
          target,
          identity,
          skippable: p.skippable,
        };
        const name = `mfa-pending:${storeKeyOf(loginId)}`;
        await store.deleteSession(name);
        await store.putSession(name, sealJson(envelope, name, pending), now() + FLOW_TTL_MS);
        return { mfa: pendingFor(ctx, request, target, p.skippable) };
      }
    }
    keys = await keyService.keysFor(target.keyVerifier, identity.verifierId, clientId, scope);
    wallets = walletsFor(keys, curve);
    if (after?.setup) {
      setup = await mfaStore.enable(
        userId,
        keys.coreKitKey,
        target.keyVerifier,
        {
          ...after.setup,
          dappShare: isCustomVerifier(ctx, target),
          clientId,
        },
        FACTORS,
      );
      mfa = { ...sessionMfa(setup.record, undefined), newDevice: setup.newDevice };
      dappShare = setup.dappShare ?? '';
      log(`auth: MFA enabled for a user of verifier ${target.keyVerifier}`);
    }
  }
  const claims = {
    email: identity.email,
    name: identity.name,
    verifier: target.keyVerifier,
    verifierId: identity.verifierId,
    aggregateVerifier: target.authVerifier !== target.keyVerifier ? target.authVerifier : undefined,
    wallets,
  };
  const idToken = await signer.sign({ nonce: bytesToHex(randomBytes(16)), ...claims }, clientId, sessionTime);
  const userInfo: AuthUserInfo = {
    email: identity.email ?? '',
    name: identity.name ?? '',
    profileImage: identity.profileImage ?? '',
    aggregateVerifier: target.authVerifier !== target.keyVerifier ? target.authVerifier : '',
    verifier: target.keyVerifier,
    verifierId: identity.verifierId,
    typeOfLogin: target.typeOfLogin,
    dappShare,
    idToken,
    oAuthIdToken: identity.oAuthIdToken ?? '',
    oAuthAccessToken: identity.oAuthAccessToken ?? '',
    isMfaEnabled: mfa !== undefined,
  };
  // The export policy: an app that may not read the key gets none of it (no keys, no shares).
  const policy = ctx.deps.exportPolicy.get(clientId) ?? 'app';
  const withheld = policy !== 'app';
  const state: SessionPayload = withheld
    ? { userInfo: { ...userInfo, dappShare: '' }, keyExport: policy }
    : { ...keys, userInfo, mfa };
  const sessionId = randomPrivKey();
  const key = storeKeyOf(sessionId);
  const at = now();
  const expiresAt = ctx.deps.chains.firstExpiry(at, sessionTime);
  await store.putSession(key, encryptJsonTo(key, state), expiresAt);
  const chainId = await ctx.deps.chains.start(key, userId, clientId, sessionTime, at, claims, request.device);
  if (mfa && !withheld) {
    const grant: Grant = { userId, keyVerifier: target.keyVerifier, network: request.options.network };
    const name = `mfa-grant:${key}`;
    await store.putSession(name, sealJson(envelope, name, grant), expiresAt);
  }
  await announce(ctx, request, target, identity, keys, record);
  const where = { verifier: target.keyVerifier, clientId, network: request.options.network };
  if (setup) await ctx.deps.audit.record('mfa.setup', userId, { ...where, outcome: 'success' });
  // An MFA user's login has passed the first factor only; the factor entries follow.
  await ctx.deps.audit.record('login', userId, {
    ...where,
    outcome: 'success',
    factor: mfa ? 'first' : undefined,
  });
  const redirect = resultUrl(ctx, request, { sessionId });
  log(`auth: login for verifier ${target.keyVerifier} (${target.typeOfLogin})`);
  // The page asks an MFA user for a second factor: under `app` it goes to the app in the result
  // fragment (the library rebuilds the key); under `user` and `off` to the service, which marks
  // this sign-in (./confirm-step.ts).
  const factors = record && page ? record.factors.filter((f) => CONFIRMABLE.includes(f)) : [];
  if (factors.length > 0 && withheld) {
    await parkConfirmStep(ctx, loginId, { redirect, factors, userId, chainId });
    return { mfa: { step: 'confirm', factors } };
  }
  if (factors.length > 0 && !mfa?.deviceKey) {
    const name = `mfa-recover:${storeKeyOf(loginId)}`;
    await store.deleteSession(name);
    await store.putSession(
      name,
      sealJson(envelope, name, { redirect, factors, userId }),
      now() + FLOW_TTL_MS,
    );
    return { mfa: { step: 'recover', factors } };
  }
  await store.deleteSession(storeKeyOf(loginId));
  return { sessionId, redirect, setup };
}

/** Tells `onLogin` (if any) of a completed login: its accounts from the keys, or from an MFA record. */
async function announce(
  ctx: LoginContext,
  request: LoginRequest,
  target: ResolvedProvider,
  identity: Identity,
  keys: DerivedKeys | undefined,
  record: MfaRecord | undefined,
): Promise<void> {
  const { onLogin, log } = ctx.deps;
  if (!onLogin) return;
  const { clientId, network } = request.options;
  try {
    const pairs: Array<['app' | 'core', PublicKeyPair]> = [];
    if (keys) {
      pairs.push([
        'app',
        { secp: secp256k1PublicKey(keys.privKey), ed: ed25519PublicKey(keys.ed25519PrivKey) },
      ]);
      pairs.push([
        'core',
        { secp: secp256k1PublicKey(keys.coreKitKey), ed: ed25519PublicKey(keys.coreKitEd25519PrivKey) },
      ]);
    } else if (record) {
      const app = ownValue(record.appKeys, clientId);
      if (app) pairs.push(['app', app]);
      pairs.push(['core', { secp: record.publicKey, ed: record.edPublicKey }]);
    }
    await onLogin({
      clientId,
      network,
      verifier: target.keyVerifier,
      verifierId: identity.verifierId,
      accounts: pairs.map(([key, pair]) => accountOf(key, pair)),
    });
  } catch (err) {
    log(`auth: onLogin failed: ${(err as Error).message}`);
  }
}
