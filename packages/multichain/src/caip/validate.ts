// The shape checks of the Multichain API's params, as @metamask/superstruct schemas. Every failure
// is reported, each as a ParamIssue `{ path, message }` in the -32602 error's data. The public
// types stay declared in ./types.ts: the published declarations depend on no other package's types.

import { type ObjectSchema, Struct, validate } from '@metamask/superstruct';
import { isPlainObject, type Json } from '@metamask/utils';
import { invalidParamsError, invalidSessionPropertiesError, type ParamIssue } from './errors.ts';
import { own } from './own.ts';
import type {
  CreateSessionParams,
  InvokeMethodParams,
  RevokeSessionParams,
  SessionProperties,
} from './types.ts';

/** A value `test` accepts, else an issue saying `message`. */
function rule(message: string, test: (value: unknown) => boolean): Struct<unknown, null> {
  return new Struct({ type: 'rule', schema: null, validator: (value) => test(value) || message });
}

/** Absent (undefined) or `struct`. */
function optional(struct: Struct<unknown, unknown>): Struct<unknown, unknown> {
  return new Struct({
    ...struct,
    validator: (value, ctx) => value === undefined || struct.validator(value, ctx),
  });
}

/** A plain object whose own members named in `schema` are checked; others pass as they are. */
function members(schema: ObjectSchema, message: string): Struct<unknown, ObjectSchema> {
  return new Struct({
    type: 'members',
    schema,
    validator: (value) => isPlainObject(value) || message,
    *entries(value) {
      if (isPlainObject(value))
        for (const key of Object.keys(schema)) yield [key, own(value, key), schema[key]];
    },
  });
}

/** A plain object whose every own value is `struct`. */
function recordOf(struct: Struct<unknown, unknown>, message: string): Struct<unknown, null> {
  return new Struct({
    type: 'recordOf',
    schema: null,
    validator: (value) => isPlainObject(value) || message,
    *entries(value) {
      if (isPlainObject(value)) for (const [key, item] of Object.entries(value)) yield [key, item, struct];
    },
  });
}

const stringArray = rule(
  'must be an array of strings',
  (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
);
const string = rule('must be a string', (value) => typeof value === 'string');

/** CAIP-217 scope objects by scope string; only the array members' types are checked here. */
const scopes = recordOf(
  members(
    {
      references: optional(stringArray),
      methods: optional(stringArray),
      notifications: optional(stringArray),
      accounts: optional(stringArray),
    },
    'must be a scope object',
  ),
  'must be an object of scope objects',
);

const createSessionParams = members(
  {
    requiredScopes: optional(scopes),
    optionalScopes: optional(scopes),
    sessionProperties: optional(rule('must be an object', isPlainObject)),
  },
  'params must be an object',
);

const invokeMethodParams = members(
  {
    scope: string,
    request: members({ method: string }, 'must be an object with method and params'),
  },
  'params must be an object',
);

const revokeSessionParams = members({ scopes: optional(stringArray) }, 'params must be an object');

/** Throws -32602 listing every failing path, when `params` does not fit `struct`. */
function assertShape(params: unknown, struct: Struct<unknown, unknown>): void {
  const [error] = validate(params, struct);
  if (!error) return;
  const issues: ParamIssue[] = error.failures().map((failure) => ({
    path: failure.path.map(String),
    message: failure.message,
  }));
  throw invalidParamsError(issues);
}

/**
 * Checks the shape of wallet_createSession params (JSON-schema level). Shape failures throw -32602
 * listing every failing path; scopes that are well-typed but invalid per CAIP-217 are dropped later
 * by `normalizeScopes`, as MetaMask does.
 */
export function assertCreateSessionParams(params: unknown): CreateSessionParams {
  if (params === undefined) return {};
  assertShape(params, createSessionParams);
  const checked = params as Record<string, unknown>;
  return {
    requiredScopes: own(checked, 'requiredScopes'),
    optionalScopes: own(checked, 'optionalScopes'),
    sessionProperties: own(checked, 'sessionProperties'),
  } as CreateSessionParams;
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
  assertShape(params, invokeMethodParams);
  const checked = params as Record<string, string>;
  const request = own(params as Record<string, Record<string, Json>>, 'request');
  const method = own(request, 'method') as string;
  const requestParams = own(request, 'params');
  return {
    scope: own(checked, 'scope') as string,
    request: requestParams === undefined ? { method } : { method, params: requestParams },
  };
}

/** wallet_revokeSession takes no params or `{ scopes?: string[] }` (partial revoke). */
export function assertRevokeSessionParams(params: unknown): RevokeSessionParams {
  if (params === undefined || Array.isArray(params)) return {};
  assertShape(params, revokeSessionParams);
  const scopes = own(params as Record<string, string[]>, 'scopes');
  return scopes === undefined ? {} : { scopes };
}
