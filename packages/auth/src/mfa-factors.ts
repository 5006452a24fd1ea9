// The library's half of the factor registry: how each factor the user types (or logs in with) is
// taken from `MfaLoginInput`, whether the account has it, and which service call checks it. The
// service's half, one module per factor, is `@portico/auth-server`'s src/factors/.
import type { MfaLoginInput } from './auth-options.ts';
import type { MfaFactor } from './mfa-rules.ts';
import type { MfaSessionData } from './types.ts';

export interface TypedFactorStep {
  key: MfaFactor;
  /** Its field in `MfaLoginInput` (and, for `fromPage`, in the login page's result). */
  input: 'backupPhrase' | 'password' | 'authenticatorCode' | 'passkeyAssertion' | 'socialBackup';
  /** Its name in the library's messages. */
  name: string;
  /** The service call that checks it (under the attempt limits) and answers its share. */
  path: '/api/mfa/factor' | '/api/mfa/social';
  payload(value: unknown): unknown;
  /** Whether the account has it set up, from the session's MFA data; else `missing` is the error. */
  enabled(mfa: MfaSessionData): boolean;
  missing: string;
  /** Prefix of the service's refusal in the error. */
  refusal?: string;
  /** The login page's recovery screen takes it (a string, handed over in the result fragment). */
  fromPage: boolean;
}

/** In the order a login input is looked at (the first given wins). */
export const TYPED_FACTORS: readonly TypedFactorStep[] = [
  {
    key: 'backUpShareFactor',
    input: 'backupPhrase',
    name: 'backup',
    path: '/api/mfa/factor',
    payload: (backupPhrase) => ({ backupPhrase }),
    enabled: (mfa) => mfa.backupIndex !== undefined,
    missing: 'No backup phrase is set up for this account',
    fromPage: true,
  },
  {
    key: 'passwordFactor',
    input: 'password',
    name: 'password',
    path: '/api/mfa/factor',
    payload: (password) => ({ password }),
    enabled: (mfa) => mfa.factors.includes('passwordFactor'),
    missing: 'No password is set up for this account',
    fromPage: true,
  },
  {
    key: 'authenticatorFactor',
    input: 'authenticatorCode',
    name: 'authenticator',
    path: '/api/mfa/factor',
    payload: (authenticatorCode) => ({ authenticatorCode }),
    enabled: (mfa) => mfa.factors.includes('authenticatorFactor'),
    missing: 'No authenticator app is set up for this account',
    fromPage: true,
  },
  {
    key: 'passkeysFactor',
    input: 'passkeyAssertion',
    name: 'passkey',
    path: '/api/mfa/factor',
    payload: (passkeyAssertion) => ({ passkeyAssertion }),
    enabled: (mfa) => mfa.factors.includes('passkeysFactor'),
    missing: 'No passkey factor is set up for this account',
    fromPage: true,
  },
  {
    key: 'socialBackupFactor',
    input: 'socialBackup',
    name: 'social',
    path: '/api/mfa/social',
    payload: (login) => login,
    // The service knows whether the account has one (the session does not say).
    enabled: () => true,
    missing: 'No social backup factor on this account',
    refusal: 'Social backup refused: ',
    fromPage: false,
  },
];

/** The typed factor an input gives, with its value (undefined: none; use the device or dappShare). */
export function typedFactorIn(input: MfaLoginInput): { step: TypedFactorStep; value: unknown } | undefined {
  for (const step of TYPED_FACTORS) {
    const value = input[step.input];
    if (value !== undefined && (step.input !== 'socialBackup' || value)) return { step, value };
  }
  return undefined;
}

/** Only the fields the login page may hand over, as strings. */
export function pickFactor(f: Record<string, unknown>): MfaLoginInput {
  for (const step of TYPED_FACTORS) {
    const value = f[step.input];
    if (step.fromPage && typeof value === 'string') return { [step.input]: value };
  }
  return {};
}
