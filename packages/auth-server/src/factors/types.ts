// What a second factor is on the service: one module per factor (its settings key, what its setup
// step checks, how its share is sealed into the MFA record, and how a login opens it again), listed
// in the registry (./index.ts). The setup route, `MfaStore.enable` and `/api/mfa/factor` only loop
// over the registry.
import type { KeyShare, LoginRequest, MfaFactor } from '@portico/auth';
import type { Grant } from '../grant.ts';
import type { LoginContext, PendingState, ResolvedProvider } from '../login/context.ts';
import type { MfaRecord, SealingFactor, SetupInput } from '../mfa.ts';

/** The setup request of a login, as a factor's setup step sees it. */
export interface SetupStep {
  ctx: LoginContext;
  loginId: string;
  request: LoginRequest;
  target: ResolvedProvider;
  pending: PendingState;
  /** The body of `/api/mfa/setup`. */
  body: Record<string, unknown>;
}

/** The answer of a factor's check: its share, or why not (counted as a failed attempt). */
export type CheckResult = { share: KeyShare } | { status: number; error: string };

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
    /** What the field holds (default a string). */
    takes?: 'string' | 'object';
    /** Its name in the audit trail (`factor`). */
    auditName: string;
    /** Throws an `HttpError` when the account has no such factor (not counted). */
    ready(record: MfaRecord): void;
    open(ctx: LoginContext, record: MfaRecord, value: unknown, grant: Grant): Promise<CheckResult>;
  };
}
