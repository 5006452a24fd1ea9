// The shapes of the Multichain API's params, as schemas (./schema.ts). Every failure is reported,
// each as a ParamIssue `{ path, message }` in the -32602 error's data. The public types stay
// declared in ./types.ts: the published declarations depend on no other package's types.

import { isPlainObject } from '@metamask/utils';
import { invalidSessionPropertiesError } from './errors.ts';
import { assertShape, field, fields, optional, recordOf, string, stringArray } from './schema.ts';
import type { InvokeMethodParams, Json, RevokeSessionParams, SessionProperties } from './types.ts';

/**
 * A CAIP-217 scope object as far as its members' types go: whether it is valid per CAIP-217 (its
 * key, required members, references) is `normalizeScopes`'s to say, which drops it if not.
 */
const requestedScope = fields(
  {
    references: optional(stringArray),
    methods: optional(stringArray),
    notifications: optional(stringArray),
    accounts: optional(stringArray),
  },
  'must be a scope object',
);

const scopes = recordOf(requestedScope, 'must be an object of scope objects');

const sessionProperties = field<SessionProperties>('must be an object', isPlainObject);

const createSessionParams = fields(
  {
    requiredScopes: optional(scopes),
    optionalScopes: optional(scopes),
    sessionProperties: optional(sessionProperties),
  },
  'params must be an object',
);

/** Any JSON value: what a dapp sends as a request's params is the method's to check. */
const anyJson = field<Json | undefined>('must be JSON', () => true);

const invokeMethodParams = fields(
  {
    scope: string,
    request: fields({ method: string, params: anyJson }, 'must be an object with method and params'),
  },
  'params must be an object',
);

const revokeSessionParams = fields({ scopes: optional(stringArray) }, 'params must be an object');

/** wallet_createSession params with their scope maps shape-checked (not yet per CAIP-217). */
type CreateSessionRequest = {
  requiredScopes?: Record<string, ScopeRequest>;
  optionalScopes?: Record<string, ScopeRequest>;
  sessionProperties?: SessionProperties;
};
type ScopeRequest = {
  references?: string[];
  methods?: string[];
  notifications?: string[];
  accounts?: string[];
};

/**
 * Checks the shape of wallet_createSession params (JSON-schema level). Shape failures throw -32602
 * listing every failing path; scopes that are well-typed but invalid per CAIP-217 are dropped later
 * by `normalizeScopes`, as MetaMask does.
 */
export function assertCreateSessionParams(params: unknown): CreateSessionRequest {
  if (params === undefined) return {};
  const checked = assertShape(params, createSessionParams);
  const request: CreateSessionRequest = {};
  if (checked.requiredScopes !== undefined) request.requiredScopes = checked.requiredScopes;
  if (checked.optionalScopes !== undefined) request.optionalScopes = checked.optionalScopes;
  if (checked.sessionProperties !== undefined) request.sessionProperties = checked.sessionProperties;
  return request;
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
  const { scope, request } = assertShape(params, invokeMethodParams);
  const { method, params: requestParams } = request;
  return { scope, request: requestParams === undefined ? { method } : { method, params: requestParams } };
}

/** wallet_revokeSession takes no params or `{ scopes?: string[] }` (partial revoke). */
export function assertRevokeSessionParams(params: unknown): RevokeSessionParams {
  if (params === undefined || Array.isArray(params)) return {};
  const { scopes } = assertShape(params, revokeSessionParams);
  return scopes === undefined ? {} : { scopes };
}
