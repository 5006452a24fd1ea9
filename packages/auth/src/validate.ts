// The checks `Auth` runs on what an app passes in: init parameters (v6 input converted), login
// parameters, chain configs. The fields are declared once, as schemas, in ./params/.

import { type ChainConfig, chainConfig } from './params/chain-config.ts';
import type { MigrationChange } from './params/changes.ts';
import { sessionTime, url } from './params/fields.ts';
import { type AuthInitParams, initParams } from './params/init.ts';
import { type AuthLoginParams, loginParams } from './params/login.ts';
import { type ExtraLoginOptions, extraLoginOptions } from './params/login-config.ts';
import { check, isObj } from './params/rules.ts';
import { DEFAULT_SESSION_TIME } from './params/values.ts';

export type { MigrationChange } from './params/changes.ts';

/** Validates ExtraLoginOptions. */
export function validateExtraLoginOptions(v: unknown, field = 'extraLoginOptions'): ExtraLoginOptions {
  return check(extraLoginOptions, v, field);
}

export interface NormalizedInit {
  params: AuthInitParams & { buildEnv: NonNullable<AuthInitParams['buildEnv']>; sessionTime: number };
  /** v5/v6 fields converted, one entry per field (said as a warning by `Auth.create`). */
  changes: MigrationChange[];
}

/**
 * Validates v7 init parameters (v6 input accepted and converted) and fills defaults:
 * buildEnv `production`, sessionTime 86400, chainNamespace `eip155` (or chainConfig's).
 */
export function normalizeInitParams(input: unknown): NormalizedInit {
  const changes: MigrationChange[] = [];
  let v = input;
  if (isObj(v) && 'MfaSettings' in v && !('mfaSettings' in v)) {
    const { MfaSettings, ...rest } = v;
    v = { ...rest, mfaSettings: MfaSettings };
  }
  const params = check(initParams(changes), v);
  return {
    params: {
      ...params,
      buildEnv: params.buildEnv ?? 'production',
      sessionTime: params.sessionTime ?? DEFAULT_SESSION_TIME,
      chainNamespace: params.chainNamespace ?? params.chainConfig?.chainNamespace ?? 'eip155',
    },
    changes,
  };
}

/**
 * Validates a chain for `auth.provider` (init's `chainConfig`, `auth.addChain`); the chainId comes
 * back in its one spelling (see `normalizeChainId`).
 */
export function validateChainConfig(v: unknown, field = 'chainConfig'): ChainConfig {
  return check(chainConfig, v, field);
}

/** v5/v6 login parameters taken apart: what v7 takes in the init parameters, and the rest. */
export interface MigratedLoginParams {
  params: unknown;
  /** v5/v6 `loginParams.redirectUrl`: this login's redirect. */
  redirectUrl?: string;
  /** v5/v6 `loginParams.sessionTime`: this login's session length. */
  sessionTime?: number;
  changes: MigrationChange[];
}

/**
 * v5 and v6 took `redirectUrl` and `sessionTime` as login parameters (v7: init parameters). They are
 * still accepted, for the login they come with, with one warning each.
 */
export function migrateLoginParams(input: unknown): MigratedLoginParams {
  if (!isObj(input)) return { params: input, changes: [] };
  const { redirectUrl, sessionTime: time, ...params } = input;
  const out: MigratedLoginParams = { params, changes: [] };
  if (redirectUrl !== undefined) {
    out.redirectUrl = check(url('redirect'), redirectUrl, 'loginParams.redirectUrl');
    out.changes.push({
      field: 'loginParams.redirectUrl',
      to: 'redirectUrl',
      message:
        'loginParams.redirectUrl is v5/v6: v7 takes redirectUrl in the init parameters (used for this login)',
    });
  }
  if (time !== undefined) {
    out.sessionTime = check(sessionTime, time, 'loginParams.sessionTime');
    out.changes.push({
      field: 'loginParams.sessionTime',
      to: 'sessionTime',
      message:
        'loginParams.sessionTime is v5/v6: v7 takes sessionTime in the init parameters (used for this login)',
    });
  }
  return out;
}

/** Validates login parameters against the (normalized) init parameters and fills defaults. */
export function validateLoginParams(input: unknown, init: AuthInitParams): AuthLoginParams {
  const params = check(loginParams(init), input === undefined ? {} : input);
  return { ...params, mfaLevel: params.mfaLevel ?? 'default', curve: params.curve ?? 'secp256k1' };
}
