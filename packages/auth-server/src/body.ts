// Request bodies: each route declares the fields it reads as a schema (the builders of
// @portico/http: every rule's message names the field), checked before the route runs. A body that fails gets 400 `INVALID_BODY` naming the first field at fault
// (`payload.id must be a string`); fields a schema does not name are left alone.

import type { Struct } from '@metamask/superstruct';
import {
  field,
  fields,
  listOf,
  nonEmptyString,
  oneOf,
  optional,
  parseBody as parseWith,
  rule,
  string,
  wholeNumber,
} from '@portico/http';
import { HttpError } from './http.ts';

export { field, fields, listOf, nonEmptyString, oneOf, optional, rule, string, wholeNumber };

/** A body (or a part of one) that fails its schema: 400, the field named in `details.field`. */
export class InvalidBodyError extends HttpError {
  override readonly name: string = 'InvalidBodyError';

  constructor(field: string, message: string) {
    super(400, 'INVALID_BODY', message, { details: { field } });
  }
}

/** An uncompressed secp256k1 public key in hex: the name of a session or a parked login request. */
export const HEX_KEY = /^04[0-9a-f]{128}$/;
export const hexKey = field<string>(
  'an uncompressed public key (hex)',
  (v) => typeof v === 'string' && HEX_KEY.test(v),
);

/** A loginId: the private key of a parked login request, 64 hex characters. */
export const loginId = field<string>(
  '64 hex characters',
  (v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v),
);

/** A challenge id as the service issues them (48 hex characters). */
export const challengeId = field<string>(
  '48 hex characters',
  (v) => typeof v === 'string' && /^[0-9a-f]{48}$/.test(v),
);

/** A signed call of a session: `key` (its public key), `signature`, the signed `payload`, and `proof`. */
export function signedCall<P>(payload: Struct<P, unknown>) {
  return fields({ key: hexKey, signature: string, payload, proof: optional(string) });
}

/** `body` checked against `struct` (not copied: signatures are checked over what was sent). */
export function parseBody<T>(struct: Struct<T, unknown>, body: unknown): T {
  return parseWith(struct, body, (at, message) => new InvalidBodyError(at, message));
}
