// The registry of second factors: one module per `mfaSettings` key. A `Record` over every factor
// of `MFA_FACTORS`, so a factor added there does not compile until its module is listed here.
import type { MfaFactor } from '@portico/auth';
import { fields, optional, string } from '../body.ts';
import { authenticatorFactor } from './authenticator.ts';
import { backupPhraseFactor } from './backup-phrase.ts';
import { deviceFactor } from './device.ts';
import { passkeyFactor } from './passkey.ts';
import { passwordFactor } from './password.ts';
import { socialBackupFactor } from './social-backup.ts';
import { type FactorModule, SOCIAL_LOGIN } from './types.ts';

export {
  type CheckResult,
  type FactorCaller,
  type FactorModule,
  SETUP_FIELDS,
  type SetupBody,
  type SetupStep,
  SOCIAL_LOGIN,
  type SocialLogin,
} from './types.ts';

export const FACTORS: Readonly<Record<MfaFactor, FactorModule>> = {
  deviceShareFactor: deviceFactor,
  backUpShareFactor: backupPhraseFactor,
  socialBackupFactor: socialBackupFactor,
  passwordFactor: passwordFactor,
  authenticatorFactor: authenticatorFactor,
  passkeysFactor: passkeyFactor,
};

const TYPED = Object.values(FACTORS).filter((f) => f.check !== undefined);

/** The payload of `/api/mfa/factor`: one typed factor's field (a module's `check.field`). */
export const TYPED_FACTOR_PAYLOAD = fields({
  password: optional(string),
  backupPhrase: optional(string),
  authenticatorCode: optional(string),
  passkeyAssertion: optional(string),
  socialBackup: optional(SOCIAL_LOGIN),
});

/** The typed factor a checked `/api/mfa/factor` payload names (the first of the registry's order), if any. */
export function typedFactorOf(
  payload: Record<string, unknown>,
): { module: FactorModule; value: unknown } | undefined {
  const module = TYPED.find((f) => payload[f.check!.field] !== undefined);
  return module && { module, value: payload[module.check!.field] };
}
