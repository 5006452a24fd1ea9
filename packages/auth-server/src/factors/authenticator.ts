// The authenticator-app factor (TOTP, beyond `002_…txt`): setup confirms the secret made for the
// login (`/api/mfa/authenticator`) with a code of the user's app; the share stays in the record
// beside the secret and a right code releases it, each code once.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { storeKeyOf } from '@portico/auth/protocol';
import { type AuthenticatorSecret, checkAuthenticatorCode } from '../authenticator.ts';
import { HttpError } from '../http.ts';
import { openJson } from '../login/sealed.ts';
import type { FactorModule } from './types.ts';

/** Where a login's setup keeps the secret it showed (sealed) until the setup call. */
export const enrolmentName = (loginId: string) => `mfa-totp:${storeKeyOf(loginId)}`;

export const authenticatorFactor: FactorModule = {
  key: 'authenticatorFactor',
  async prepare({ ctx, loginId, body }) {
    const { store, envelope, now } = ctx.deps;
    const name = enrolmentName(loginId);
    const sealed = await store.getSession(name, now());
    if (!sealed)
      throw new HttpError(
        400,
        'MFA_SETUP_INVALID',
        'Start the authenticator setup first (/api/mfa/authenticator)',
      );
    const secret = openJson<AuthenticatorSecret>(envelope, name, sealed);
    const code = body.authenticatorCode;
    const step = code === undefined ? undefined : checkAuthenticatorCode(secret, code, now());
    if (step === undefined)
      throw new HttpError(
        400,
        'MFA_SETUP_INVALID',
        'Wrong authenticator code: enter the code the app shows now',
      );
    // The sealed secret expires with the login (10 minutes): a later factor's step may still fail.
    return { authenticator: { secret: secret.secret, lastStep: step } };
  },
  seal(share, input, record) {
    if (!input.authenticator) throw new Error('The authenticator factor needs a confirmed secret');
    record.authenticator = { ...input.authenticator, share };
  },
  check: {
    field: 'authenticatorCode',
    auditName: 'authenticator',
    ready(record) {
      if (!record.authenticator)
        throw new HttpError(400, 'MFA_FACTOR_NOT_SET_UP', 'No authenticator app is set up for this account');
    },
    async open(ctx, record, value, grant) {
      const bound = record.authenticator!;
      const at = ctx.deps.now();
      const step = checkAuthenticatorCode(bound, String(value), at);
      // A code is taken once (RFC 6238 §5.2), across instances: its step is marked in the store.
      const fresh =
        step !== undefined &&
        (await ctx.deps.store.markTokenUsed(
          bytesToHex(sha256(utf8ToBytes(`totp:${grant.userId}:${step}`))),
          (step + 3) * 30_000,
        ));
      return fresh ? { share: bound.share } : { status: 401, message: 'Wrong authenticator code' };
    },
  },
};
