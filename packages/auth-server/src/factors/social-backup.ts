// The social-backup factor: its share stays in the record and is released after a login with a
// second, different (JWT) verifier bound at setup. The service then holds two shares (the library
// warns at init).
import { is } from '@metamask/superstruct';
import { HttpError } from '../http.ts';
import { KeyService } from '../keys.ts';
import type { LoginContext } from '../login/context.ts';
import { VerifierError } from '../verifiers/types.ts';
import { type FactorModule, SOCIAL_LOGIN, type SocialLogin } from './types.ts';

/** Verifies a second login (social backup) with a JWT verifier other than the account's own. */
export async function socialIdentity(
  ctx: LoginContext,
  primaryVerifiers: string[],
  v: SocialLogin,
  network: string,
): Promise<{ verifier: string; id: string }> {
  if (primaryVerifiers.includes(v.verifier)) {
    throw new HttpError(
      400,
      'MFA_SETUP_INVALID',
      'The social backup factor needs a different verifier than the login',
    );
  }
  const verifier = ctx.deps.jwtVerifiers.get(v.verifier);
  if (!verifier)
    throw new HttpError(400, 'PROVIDER_INVALID', `Verifier "${v.verifier}" is not a JWT verifier`);
  const identity = await verifier.verify(v.id_token);
  return {
    verifier: v.verifier,
    id: KeyService.idOf(v.verifier, identity.verifierId, ctx.deps.keyService.scope(network)),
  };
}

export const socialBackupFactor: FactorModule = {
  key: 'socialBackupFactor',
  async prepare({ ctx, target, request, body }) {
    if (!body.socialBackup)
      throw new HttpError(
        400,
        'MFA_SETUP_INVALID',
        'socialBackupFactor needs socialBackup: {verifier, id_token}',
      );
    let social: { verifier: string; id: string };
    try {
      social = await socialIdentity(
        ctx,
        [target.keyVerifier, target.authVerifier],
        body.socialBackup,
        request.options.network,
      );
    } catch (err) {
      if (err instanceof VerifierError)
        throw new HttpError(401, 'LOGIN_FAILED', `Social backup login: ${err.message}`);
      throw err;
    }
    if (await ctx.mfaStore.socialOwner(social.id)) {
      throw new HttpError(
        409,
        'SOCIAL_BACKUP_TAKEN',
        'That login is already the social backup of another account',
      );
    }
    return { social };
  },
  seal(share, input, record) {
    if (!input.social) throw new Error('The social backup factor needs a login with a second verifier');
    record.social = { ...input.social, share };
  },
  async saved(store, userId, record) {
    if (record.social) await store.bindSocial(record.social.id, userId);
  },
  check: {
    field: 'socialBackup',
    auditName: 'social backup',
    ready(record) {
      if (!record.social)
        throw new HttpError(400, 'MFA_FACTOR_NOT_SET_UP', 'No social backup factor on this account');
    },
    async open(ctx, record, value, grant) {
      const bound = record.social!;
      if (!is(value, SOCIAL_LOGIN))
        return { status: 401, message: 'socialBackup needs {verifier, id_token}' };
      let login: { verifier: string; id: string };
      try {
        login = await socialIdentity(
          ctx,
          [grant.keyVerifier],
          value,
          grant.network ?? ctx.deps.keyService.legacyNetwork,
        );
      } catch (err) {
        if (err instanceof VerifierError) return { status: 401, message: err.message };
        throw err;
      }
      if (login.id !== bound.id || login.verifier !== bound.verifier) {
        return { status: 403, message: 'This login is not the social backup of this account' };
      }
      return { share: bound.share };
    },
  },
};
