import { isPlainObject, type Json } from '@metamask/utils';
import { invalidParamsError, invalidSessionPropertiesError, type ParamIssue } from './errors.ts';
import { own } from './own.ts';
import type {
  CreateSessionParams,
  InvokeMethodParams,
  RevokeSessionParams,
  SessionProperties,
} from './types.ts';

const SCOPE_ARRAY_MEMBERS = ['references', 'methods', 'notifications', 'accounts'] as const;

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function checkScopesObject(name: string, value: unknown, issues: ParamIssue[]): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) {
    issues.push({ path: [name], message: 'must be an object of scope objects' });
    return;
  }
  for (const [key, scope] of Object.entries(value)) {
    if (!isPlainObject(scope)) {
      issues.push({ path: [name, key], message: 'must be a scope object' });
      continue;
    }
    for (const member of SCOPE_ARRAY_MEMBERS) {
      const value = own(scope, member);
      if (value !== undefined && !isStringArray(value)) {
        issues.push({ path: [name, key, member], message: 'must be an array of strings' });
      }
    }
  }
}

/**
 * Checks the shape of wallet_createSession params (JSON-schema level). Shape failures throw -32602
 * listing every failing path; scopes that are well-typed but invalid per CAIP-217 are dropped later
 * by `normalizeScopes`, as MetaMask does.
 */
export function assertCreateSessionParams(params: unknown): CreateSessionParams {
  const issues: ParamIssue[] = [];
  if (params === undefined) return {};
  if (!isPlainObject(params)) throw invalidParamsError([{ path: [], message: 'params must be an object' }]);
  const requiredScopes = own(params, 'requiredScopes');
  const optionalScopes = own(params, 'optionalScopes');
  const sessionProperties = own(params, 'sessionProperties');
  checkScopesObject('requiredScopes', requiredScopes, issues);
  checkScopesObject('optionalScopes', optionalScopes, issues);
  if (sessionProperties !== undefined && !isPlainObject(sessionProperties)) {
    issues.push({ path: ['sessionProperties'], message: 'must be an object' });
  }
  if (issues.length > 0) throw invalidParamsError(issues);
  return { requiredScopes, optionalScopes, sessionProperties } as CreateSessionParams;
}

/**
 * Keeps the session properties the wallet knows. `{}` (present and empty) is error 5302; unknown
 * members are dropped.
 */
export function filterSessionProperties(
  sessionProperties: SessionProperties | undefined,
  known: readonly string[],
): SessionProperties {
  if (sessionProperties === undefined) return {};
  if (Object.keys(sessionProperties).length === 0) throw invalidSessionPropertiesError();
  const kept: SessionProperties = {};
  for (const [key, value] of Object.entries(sessionProperties)) if (known.includes(key)) kept[key] = value;
  return kept;
}

/** Checks wallet_invokeMethod params: `{ scope: string, request: { method: string, params? } }`. */
export function assertInvokeMethodParams(params: unknown): InvokeMethodParams {
  if (!isPlainObject(params)) throw invalidParamsError([{ path: [], message: 'params must be an object' }]);
  const issues: ParamIssue[] = [];
  const scope = own(params, 'scope');
  const request = own(params, 'request');
  if (typeof scope !== 'string') issues.push({ path: ['scope'], message: 'must be a string' });
  if (!isPlainObject(request)) {
    issues.push({ path: ['request'], message: 'must be an object with method and params' });
  } else if (typeof own(request, 'method') !== 'string') {
    issues.push({ path: ['request', 'method'], message: 'must be a string' });
  }
  if (issues.length > 0) throw invalidParamsError(issues);
  const method = own(request as Record<string, unknown>, 'method') as string;
  const requestParams = own(request as Record<string, Json>, 'params');
  return {
    scope: scope as string,
    request: requestParams === undefined ? { method } : { method, params: requestParams },
  };
}

/** wallet_revokeSession takes no params or `{ scopes?: string[] }` (partial revoke). */
export function assertRevokeSessionParams(params: unknown): RevokeSessionParams {
  if (params === undefined || Array.isArray(params)) return {};
  if (!isPlainObject(params)) throw invalidParamsError([{ path: [], message: 'params must be an object' }]);
  const scopes = own(params, 'scopes');
  if (scopes !== undefined && !isStringArray(scopes)) {
    throw invalidParamsError([{ path: ['scopes'], message: 'must be an array of strings' }]);
  }
  return scopes === undefined ? {} : { scopes };
}
