// What a second factor is on the service: one module per factor (its settings key, what its setup
// step checks, how its share is sealed into the MFA record, and how a login opens it again), listed
// in the registry (./index.ts). The setup route, `MfaStore.enable` and `/api/mfa/factor` only loop
// over the registry.
import type { Infer } from '@metamask/superstruct';
import type { LoginRequest, MfaFactor } from '@portico/auth';
import type { KeyShare } from '@portico/auth/protocol';
import { fields, optional, string } from '../body.ts';
import type { Grant } from '../grant.ts';
import type { LoginContext, PendingState, ResolvedProvider } from '../login/context.ts';
import type { MfaRecord, SealingFactor, SetupInput } from '../mfa.ts';

/** A second login with another JWT verifier: the social backup factor's input. */
export const SOCIAL_LOGIN = fields({ verifier: string, id_token: string });
export type SocialLogin = Infer<typeof SOCIAL_LOGIN>;

/** What `/api/mfa/setup` carries beside `loginId` and `factors`: the input of the factors that take one. */
export const SETUP_FIELDS = {
  password: optional(string),
  authenticatorCode: optional(string),
  socialBackup: optional(SOCIAL_LOGIN),
  passkeyCredential: optional(string),
};

/** The body of `/api/mfa/setup`, checked. */
export interface SetupBody {
  loginId: string;
  factors: MfaFactor[];
  password?: string;
  authenticatorCode?: string;
  socialBackup?: SocialLogin;
  passkeyCredential?: string;
}

/** The setup request of a login, as a factor's setup step sees it. */
export interface SetupStep {
  ctx: LoginContext;
  loginId: string;
  request: LoginRequest;
  target: ResolvedProvider;
  pending: PendingState;
  /** The body of `/api/mfa/setup`. */
  body: SetupBody;
}

/**
 * The answer of a factor's check: its share, or why not (counted as a failed attempt; answered as
 * `MFA_FACTOR_INVALID` with this status).
 */
export type CheckResult = { share: KeyShare } | { status: 401 | 403; message: string };

/**
 * Who a factor's check runs for: a login's MFA grant (`/api/mfa/factor`), or a signed-in session
 * confirming a factor (`/api/mfa/confirm`), which names its sign-in (session chain).
 */
export interface FactorCaller extends Grant {
  chainId?: string;
}

export interface FactorModule extends SealingFactor {
  /** Its key in `mfaSettings` and in `setup.factors`. */
  key: MfaFactor;
  /**
   * Setup, before anything is enabled: checks what the user gave for this factor (throws an
   * `HttpError` naming the problem) and returns its part of `SetupInput`.
   */
  prepare?(step: SetupStep): Promise<Partial<SetupInput>>;
  /**
   * Login: a typed factor the service checks under the attempt limits. `field` names it in the
   * payload of `/api/mfa/factor`; `open` returns the share for a right value.
   */
  check?: {
    field: string;
    /** Its name in the audit trail (`factor`). */
    auditName: string;
    /** Throws an `HttpError` when the account has no such factor (not counted). */
    ready(record: MfaRecord): void;
    open(ctx: LoginContext, record: MfaRecord, value: unknown, caller: FactorCaller): Promise<CheckResult>;
  };
}
