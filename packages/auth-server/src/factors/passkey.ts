// The passkey factor (beyond `002_…txt`): a passkey made on the login page's setup screen holds this
// factor. Its share stays in the MFA record beside the credential's public key (the service checks
// the answers, as it does authenticator codes) and a passkey answer to a challenge issued for this
// user releases it. Challenges (`POST /api/mfa/passkey`) are sealed in the store, bound to the
// login (setup), the user (recovery) or the user's sign-in (`POST /api/mfa/confirm/passkey`, a
// session confirming the factor), and taken once. The WebAuthn ceremony itself runs on the
// login page (the relying party is the service); the app's library hands the answer over.
import { type Infer, is } from '@metamask/superstruct';
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import { DEFAULT_MFA_SETTINGS, type MfaFactor } from '@portico/auth';
import { storeKeyOf } from '@portico/auth/protocol';
import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { challengeId, fields, loginId, oneOf, string } from '../body.ts';
import { HttpError } from '../http.ts';
import { KeyService } from '../keys.ts';
import { readConfirmStep } from '../login/confirm-step.ts';
import { type LoginContext, route } from '../login/context.ts';
import { readRequest, resolveProvider } from '../login/request.ts';
import { openJson, sealJson } from '../login/sealed.ts';
import type { PasskeyCredential } from '../mfa.ts';
import { PASSKEY_ALGORITHMS, relyingParty } from '../webauthn.ts';
import type { FactorModule } from './types.ts';

interface FactorChallenge {
  /** `register` (setup), `login` (recovery) or `confirm` (a signed-in session's confirmation). */
  mode: 'register' | 'login' | 'confirm';
  challenge: string;
  /** Setup: the login (its public key). */
  login?: string;
  /** Recovery and confirmation: the user whose passkey answers. */
  userId?: string;
  /** Confirmation: the sign-in (session chain) it was issued to. */
  chainId?: string;
}

const CHALLENGE_MS = 5 * 60 * 1000;
const challengeName = (id: string) => `mfa-passkey:${id}`;

/** `{ challengeId, response }`, as the login page hands a passkey answer over (a JSON string). */
const PASSKEY_ANSWER = fields({ challengeId, response: fields({ id: string }) });

function readAnswer(value: unknown): Infer<typeof PASSKEY_ANSWER> | undefined {
  if (typeof value !== 'string' || value.length > 16_384) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  return is(parsed, PASSKEY_ANSWER) ? parsed : undefined;
}

/** Takes (deletes) a challenge: undefined when unknown, used or expired. */
async function takeChallenge(ctx: LoginContext, id: string): Promise<FactorChallenge | undefined> {
  const { store, envelope, now } = ctx.deps;
  const name = challengeName(id);
  const sealed = await store.getSession(name, now());
  if (!sealed || !(await store.deleteSession(name))) return undefined;
  return openJson<FactorChallenge>(envelope, name, sealed);
}

/** Stores a challenge (sealed, single use) and answers its id with the browser's options. */
async function issueChallenge(
  ctx: LoginContext,
  record: FactorChallenge,
  options: unknown,
): Promise<{ challengeId: string; options: unknown }> {
  const { store, envelope, now } = ctx.deps;
  const id = bytesToHex(randomBytes(24));
  const name = challengeName(id);
  await store.putSession(name, sealJson(envelope, name, record), now() + CHALLENGE_MS);
  return { challengeId: id, options };
}

/** Options asking the account's one factor passkey for an answer (recovery and confirmation). */
function assertionOptions(ctx: LoginContext, passkey: PasskeyCredential) {
  return generateAuthenticationOptions({
    rpID: relyingParty(ctx.deps.sdkUrl).rpID,
    allowCredentials: [
      { id: passkey.credentialId, transports: passkey.transports as AuthenticatorTransportFuture[] },
    ],
    userVerification: 'required',
    timeout: CHALLENGE_MS,
  });
}

/**
 * A challenge for a signed-in session confirming the passkey factor (`/api/mfa/confirm`): bound to
 * the user and the session's sign-in, so only that sign-in's confirmation can spend it.
 */
export async function confirmChallenge(
  ctx: LoginContext,
  userId: string,
  chainId: string,
): Promise<{ challengeId: string; options: unknown }> {
  const mfa = await ctx.mfaStore.load(userId);
  if (!mfa) throw new HttpError(404, 'MFA_NOT_ENABLED', 'MFA is not enabled for this user');
  passkeyFactor.check!.ready(mfa);
  const options = await assertionOptions(ctx, mfa.passkey!);
  return issueChallenge(ctx, { mode: 'confirm', challenge: options.challenge, userId, chainId }, options);
}

export const passkeyFactor: FactorModule = {
  key: 'passkeysFactor',
  async prepare({ ctx, loginId, body }) {
    const answer = readAnswer(body.passkeyCredential);
    if (!answer) {
      throw new HttpError(
        400,
        'MFA_SETUP_INVALID',
        'passkeysFactor needs passkeyCredential: create the passkey on the setup screen',
      );
    }
    const challenge = await takeChallenge(ctx, answer.challengeId);
    if (challenge?.mode !== 'register' || challenge.login !== storeKeyOf(loginId)) {
      throw new HttpError(
        400,
        'PASSKEY_CHALLENGE_INVALID',
        'Passkey challenge unknown, used or expired: create the passkey again',
      );
    }
    const { rpID, origin } = relyingParty(ctx.deps.sdkUrl);
    let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
    try {
      verified = await verifyRegistrationResponse({
        response: answer.response as RegistrationResponseJSON,
        expectedChallenge: challenge.challenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: true,
        supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
      });
    } catch (err) {
      throw new HttpError(400, 'MFA_SETUP_INVALID', `Passkey refused: ${(err as Error).message}`);
    }
    if (!verified.verified || !verified.registrationInfo)
      throw new HttpError(400, 'MFA_SETUP_INVALID', 'Passkey refused');
    const made = verified.registrationInfo.credential;
    return {
      passkey: {
        credentialId: made.id,
        publicKey: isoBase64URL.fromBuffer(made.publicKey),
        counter: made.counter,
        transports: made.transports ?? [],
      },
    };
  },
  seal(share, input, record) {
    if (!input.passkey) throw new Error('The passkey factor needs a verified passkey');
    record.passkey = { ...input.passkey, share };
  },
  check: {
    field: 'passkeyAssertion',
    auditName: 'passkey',
    ready(record) {
      if (!record.passkey)
        throw new HttpError(400, 'MFA_FACTOR_NOT_SET_UP', 'No passkey factor is set up for this account');
    },
    async open(ctx, record, value, caller) {
      const bound = record.passkey!;
      const answer = readAnswer(value);
      if (!answer) return { status: 401, message: 'Wrong passkey answer' };
      const challenge = await takeChallenge(ctx, answer.challengeId);
      // A recovery challenge serves the login's grant; a confirmation challenge only the sign-in
      // it was issued to (another session of the same user cannot spend it).
      const mode = caller.chainId === undefined ? 'login' : 'confirm';
      if (
        challenge?.mode !== mode ||
        challenge.userId !== caller.userId ||
        challenge.chainId !== caller.chainId
      ) {
        return { status: 401, message: 'Passkey challenge unknown, used or expired' };
      }
      if (answer.response.id !== bound.credentialId) {
        return { status: 401, message: "Passkey refused: not this account's passkey" };
      }
      const { rpID, origin } = relyingParty(ctx.deps.sdkUrl);
      let verified: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        verified = await verifyAuthenticationResponse({
          response: answer.response as AuthenticationResponseJSON,
          expectedChallenge: challenge.challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: {
            id: bound.credentialId,
            publicKey: isoBase64URL.toBuffer(bound.publicKey),
            counter: bound.counter,
            transports: bound.transports as AuthenticatorTransportFuture[],
          },
          requireUserVerification: true,
        });
      } catch (err) {
        return { status: 401, message: `Passkey refused: ${(err as Error).message}` };
      }
      if (!verified.verified) return { status: 401, message: 'Passkey refused' };
      // The library refuses a counter at or below the one read with the record; this records the
      // new one, and refuses it when another check recorded it (or a later one) meanwhile.
      const counter = verified.authenticationInfo.newCounter;
      if (!(await ctx.mfaStore.advancePasskeyCounter(caller.userId, counter, ctx.deps.now()))) {
        return {
          status: 401,
          message: 'Passkey refused: its signature counter did not move forward (a copied authenticator?)',
        };
      }
      return { share: bound.share };
    },
  },
};

/**
 * `POST /api/mfa/passkey {loginId, mode}`: a challenge for the login page. `register` during a
 * login's MFA setup step (the app enabled `passkeysFactor`); `login` on the recovery screen of a
 * user whose account has the passkey factor; `confirm` on the confirmation step (export policy
 * `user` or `off`), bound to the sign-in the login made.
 */
export const passkeyFactorRoute = route(
  fields({ loginId, mode: oneOf(['register', 'login', 'confirm']) }),
  async (ctx, body) => {
    const { store, envelope, now, keyService } = ctx.deps;
    const { loginId } = body;
    const request = await readRequest(ctx, loginId);
    if (body.mode === 'confirm') {
      const step = await readConfirmStep(ctx, loginId);
      if (!step) throw new HttpError(404, 'MFA_NOT_PENDING', 'No confirmation pending for this login');
      return [200, await confirmChallenge(ctx, step.userId, step.chainId)];
    }
    const { rpID } = relyingParty(ctx.deps.sdkUrl);
    let record: FactorChallenge;
    let options: unknown;
    if (body.mode === 'register') {
      const settings = request.options.mfaSettings ?? DEFAULT_MFA_SETTINGS;
      if (!settings.passkeysFactor?.enable) {
        throw new HttpError(400, 'MFA_SETUP_INVALID', 'MFA factor passkeysFactor is not enabled by this app');
      }
      const pendingName = `mfa-pending:${storeKeyOf(loginId)}`;
      const sealed = await store.getSession(pendingName, now());
      if (!sealed) throw new HttpError(404, 'MFA_NOT_PENDING', 'No MFA step pending for this login');
      const pending = openJson<{
        provider: string;
        target?: { keyVerifier: string };
        identity: { verifierId: string; claim?: string; email?: string; name?: string };
      }>(envelope, pendingName, sealed);
      const keyVerifier =
        pending.target?.keyVerifier ?? resolveProvider(ctx, request, pending.provider).keyVerifier;
      const userId = KeyService.idOf(
        keyVerifier,
        pending.identity.verifierId,
        keyService.scope(request.options.network, pending.identity.claim),
      );
      const label = pending.identity.email || pending.identity.name || pending.identity.verifierId;
      options = await generateRegistrationOptions({
        rpName: request.options.whiteLabel?.appName || 'Portico',
        rpID,
        userName: label,
        userDisplayName: pending.identity.name || label,
        userID: new Uint8Array(envelope.mac(`passkey-factor-user:${userId}`)),
        timeout: CHALLENGE_MS,
        attestationType: 'none',
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
        supportedAlgorithmIDs: PASSKEY_ALGORITHMS,
      });
      record = {
        mode: 'register',
        challenge: (options as { challenge: string }).challenge,
        login: storeKeyOf(loginId),
      };
    } else {
      const recoverName = `mfa-recover:${storeKeyOf(loginId)}`;
      const sealed = await store.getSession(recoverName, now());
      if (!sealed) throw new HttpError(404, 'MFA_NOT_PENDING', 'No MFA recovery pending for this login');
      const { userId, factors } = openJson<{ userId?: string; factors: MfaFactor[] }>(
        envelope,
        recoverName,
        sealed,
      );
      const mfa = userId && factors.includes('passkeysFactor') ? await ctx.mfaStore.load(userId) : undefined;
      if (!userId || !mfa?.passkey)
        throw new HttpError(400, 'MFA_FACTOR_NOT_SET_UP', 'No passkey factor is set up for this account');
      options = await assertionOptions(ctx, mfa.passkey);
      record = { mode: 'login', challenge: (options as { challenge: string }).challenge, userId };
    }
    return [200, await issueChallenge(ctx, record, options)];
  },
);
