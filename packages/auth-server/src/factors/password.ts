// The password factor: its share sealed under scrypt(password) + AES-GCM in the record, opened by
// the service when the typed password is right; never handed to a session.
import { openShareWithPassword, sealShareWithPassword } from '@portico/auth/protocol';
import { HttpError } from '../http.ts';
import type { FactorModule } from './types.ts';

export const passwordFactor: FactorModule = {
  key: 'passwordFactor',
  async prepare({ body }) {
    const { password } = body;
    if (!password || password.length < 8)
      throw new HttpError(400, 'MFA_SETUP_INVALID', 'The password needs at least 8 characters');
    return { password };
  },
  async seal(share, input, record) {
    if (!input.password) throw new Error('The password factor needs a password');
    record.passwordShare = await sealShareWithPassword(share, input.password);
  },
  check: {
    field: 'password',
    auditName: 'password',
    ready(record) {
      if (!record.passwordShare)
        throw new HttpError(400, 'MFA_FACTOR_NOT_SET_UP', 'No password is set up for this account');
    },
    async open(_ctx, record, value) {
      try {
        return { share: await openShareWithPassword(record.passwordShare!, String(value)) };
      } catch {
        return { status: 401, message: 'Wrong password' };
      }
    },
  },
};
