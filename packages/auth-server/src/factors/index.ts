// The registry of second factors: one module per `mfaSettings` key. A `Record` over every factor
// of `MFA_FACTORS`, so a factor added there does not compile until its module is listed here.
import type { MfaFactor } from '@portico/auth';
import { authenticatorFactor } from './authenticator.ts';
import { backupPhraseFactor } from './backup-phrase.ts';
import { deviceFactor } from './device.ts';
import { passwordFactor } from './password.ts';
import { socialBackupFactor } from './social-backup.ts';
import type { FactorModule } from './types.ts';

export type { CheckResult, FactorModule, SetupStep } from './types.ts';

export const FACTORS: Readonly<Record<MfaFactor, FactorModule>> = {
  deviceShareFactor: deviceFactor,
  backUpShareFactor: backupPhraseFactor,
  socialBackupFactor: socialBackupFactor,
  passwordFactor: passwordFactor,
  authenticatorFactor: authenticatorFactor,
};

/** The typed factor a `/api/mfa/factor` payload names (the first of the registry's order), if any. */
export function typedFactorOf(payload: Record<string, unknown>): FactorModule | undefined {
  return Object.values(FACTORS).find(
    (f) =>
      f.check &&
      typeof payload[f.check.field] === (f.check.takes ?? 'string') &&
      payload[f.check.field] !== null,
  );
}
