// What an app may ask a verifier for in extraLoginOptions (`verifierIdField`,
// `isVerifierIdCaseSensitive`, `leeway`), within the bounds the service's verifier configuration
// sets — as on Web3Auth, where the verifier's settings on the dashboard bound what the SDK sends.
// The bounds exist because coreKitKeys are shared by every app of a verifier: an app that could
// pick any claim, or lowercase ids, could log its user in as somebody else.
import type { ExtraLoginOptions } from '@portico/auth';
import { ownValue } from '@portico/auth/protocol';
import { VerifierError } from './types.ts';

/** The verifier-id settings of a JWT or OIDC verifier (its own defaults and the app's bounds). */
export interface VerifierIdRules {
  /** Claim holding the verifier id (default `sub`). */
  verifierIdField?: string;
  /**
   * Other claims an app may name in `extraLoginOptions.verifierIdField` (default: none). Keys of
   * users found through such a claim are kept apart per claim, so a value in one claim never
   * yields the key of another user whose id has the same value in another claim.
   */
  verifierIdFields?: string[];
  /** Default true; when false the verifier id is lowercased. */
  isVerifierIdCaseSensitive?: boolean;
  /**
   * Whether an app may ask for lowercased ids (`isVerifierIdCaseSensitive: false`) from a
   * case-sensitive verifier (default false: only for claims where case carries no meaning, such
   * as email addresses, should an operator allow it).
   */
  allowCaseInsensitive?: boolean;
  /** Clock skew allowed in seconds when the app asks for none. */
  leeway?: number;
  /** The most leeway, in seconds, an app may ask for (default 60, or `leeway` when that is more). */
  maxLeeway?: number;
}

/** The verifier-id rules in force for one login. */
export interface AppIdOptions {
  field: string;
  caseSensitive: boolean;
  leeway: number;
  /** Set when `field` is not the verifier's own verifierIdField: keys are kept apart per claim. */
  claim?: string;
}

export const DEFAULT_MAX_LEEWAY = 60;

function maxLeewayOf(rules: VerifierIdRules, defaultLeeway: number): number {
  return rules.maxLeeway ?? Math.max(DEFAULT_MAX_LEEWAY, rules.leeway ?? defaultLeeway);
}

/** Checks a verifier's rules at startup; throws with the verifier's name on a bad value. */
export function checkVerifierIdRules(name: string, rules: VerifierIdRules, defaultLeeway: number): void {
  const seconds = (what: string, v: number | undefined) => {
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) {
      throw new Error(`verifier ${name}: ${what} must be a whole number of seconds, 0 or more`);
    }
  };
  seconds('leeway', rules.leeway);
  seconds('maxLeeway', rules.maxLeeway);
  if ((rules.leeway ?? defaultLeeway) > maxLeewayOf(rules, defaultLeeway)) {
    throw new Error(`verifier ${name}: leeway is above maxLeeway`);
  }
  for (const field of [rules.verifierIdField, ...(rules.verifierIdFields ?? [])]) {
    if (field !== undefined && (typeof field !== 'string' || field === '')) {
      throw new Error(`verifier ${name}: verifier id fields must be non-empty claim names`);
    }
  }
}

/** The rules for one login: the app's values within the verifier's bounds, else the verifier's own. */
export function appIdOptions(
  verifier: string,
  rules: VerifierIdRules,
  extra: ExtraLoginOptions | undefined,
  defaultLeeway: number,
): AppIdOptions {
  const own = rules.verifierIdField ?? 'sub';
  const field = extra?.verifierIdField ?? own;
  const allowed = [own, ...(rules.verifierIdFields ?? [])];
  if (!allowed.includes(field)) {
    throw new VerifierError(
      `verifierIdField "${field}" is not allowed by verifier "${verifier}" (allowed: ${allowed.join(', ')})`,
    );
  }
  const ownCaseSensitive = rules.isVerifierIdCaseSensitive !== false;
  const caseSensitive = extra?.isVerifierIdCaseSensitive ?? ownCaseSensitive;
  if (!caseSensitive && ownCaseSensitive && !rules.allowCaseInsensitive) {
    throw new VerifierError(
      `Verifier "${verifier}" keeps verifier ids case-sensitive: isVerifierIdCaseSensitive false is not allowed`,
    );
  }
  const maxLeeway = maxLeewayOf(rules, defaultLeeway);
  const leeway = extra?.leeway ?? rules.leeway ?? defaultLeeway;
  if (leeway > maxLeeway) {
    throw new VerifierError(
      `leeway ${leeway} is above the ${maxLeeway} seconds verifier "${verifier}" allows`,
    );
  }
  return { field, caseSensitive, leeway, claim: field === own ? undefined : field };
}

/** The verifier id from a token's (own) claims, per the rules in force; undefined when absent. */
export function verifierIdFrom(claims: Record<string, unknown>, options: AppIdOptions): string | undefined {
  const raw = ownValue(claims, options.field);
  if (typeof raw !== 'string' || raw === '') return undefined;
  return options.caseSensitive ? raw : raw.toLowerCase();
}
