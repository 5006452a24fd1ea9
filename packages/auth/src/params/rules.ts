// The building blocks of the parameter schemas, on @metamask/superstruct: every failure carries the
// text of what is allowed as its message (and, where the value must not be echoed, a stand-in as
// its value), so `check` turns the first one into the AuthValidationError users have always seen:
// `Invalid <field>: <value>. Allowed: <what is allowed>`.
import { type Context, type ObjectSchema, type ObjectType, Struct, validate } from '@metamask/superstruct';
import { AuthValidationError } from '../errors.ts';
import { setOwn } from '../own.ts';

type Obj = Record<string, unknown>;

/** A plain-data object: not null, not an array. */
export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function list(values: readonly string[]): string {
  return values.join(', ');
}

/** A failure at `path` (not the value's own) with `value` shown; `undefined` shows as "missing". */
export function failAt(path: readonly unknown[], allowed: string, value?: unknown) {
  return { path: [...path], message: allowed, value };
}

/** A leaf value: `test` answers true, or the text of what is allowed (or a failure of `failAt`). */
export function rule<T>(
  name: string,
  test: (v: unknown, ctx: Context) => true | string | ReturnType<typeof failAt>,
): Struct<T, null> {
  return new Struct<T, null>({ type: name, schema: null, validator: test });
}

export function oneOf<const T extends string>(values: readonly T[]): Struct<T, null> {
  return rule<T>('oneOf', (v) => (typeof v === 'string' && values.includes(v as T)) || list(values));
}

/** Any plain-data object (a condition for coercions). */
export const anObject = rule<Record<string, unknown>>('anObject', (v) => isObj(v) || 'an object');

export const text = rule<string>('string', (v) => typeof v === 'string' || 'a string');

export const nonEmptyText = rule<string>(
  'nonEmptyString',
  (v) => (typeof v === 'string' && v.trim() !== '') || 'a non-empty string',
);

export const flag = rule<boolean>('boolean', (v) => typeof v === 'boolean' || 'true or false');

/** A whole number from `min` up (to `max`), else `allowed`. */
export function wholeNumber(
  allowed: string,
  min: number,
  max = Number.POSITIVE_INFINITY,
): Struct<number, null> {
  return rule<number>(
    'wholeNumber',
    (v) => (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) || allowed,
  );
}

/**
 * An object with the fields of `schema`, validated in the schema's order after its keys: a key
 * the schema lacks is refused first. `name`: how errors about the object itself call it (the init
 * and login parameters, whose fields go by their bare names); `shape`: what a non-object is told;
 * `listed`: the known fields in the order the message lists them, when not the schema's.
 */
export function exact<S extends ObjectSchema>(
  schema: S,
  options: { name?: string; shape?: string; listed?: readonly string[] } = {},
): Struct<ObjectType<S>, S> {
  const known = Object.keys(schema);
  const listed = list(options.listed ?? known);
  return new Struct<ObjectType<S>, S>({
    type: 'object',
    schema,
    *validator(value, ctx) {
      const label = options.name ?? ctx.path.join('.');
      if (!isObj(value)) {
        yield failAt([label], options.shape ?? 'an object', value);
        return;
      }
      for (const key of Object.keys(value)) {
        if (!known.includes(key))
          yield failAt([label, key], `known fields of ${label}: ${listed}`, value[key]);
      }
    },
    *entries(value) {
      if (isObj(value)) for (const key of known) yield [key, value[key], schema[key] as Struct<unknown>];
    },
    // A copy of the own fields: coercions below (a normalized chain id) must not write into the
    // caller's object, and nothing inherited counts as given.
    coercer: (value) => (isObj(value) ? { ...value } : value),
  });
}

/** An object of any keys whose values are all `value`; `shape` is what a non-object is told. */
export function dict<T>(
  value: Struct<T, unknown>,
  shape: string,
): Struct<Record<string, T>, Struct<T, unknown>> {
  return new Struct<Record<string, T>, Struct<T, unknown>>({
    type: 'dict',
    schema: value,
    validator: (v) => isObj(v) || shape,
    *entries(v) {
      if (isObj(v)) for (const [key, item] of Object.entries(v)) yield [key, item, value];
    },
  });
}

/**
 * The validated value as fresh data: an `exact` object's fields in schema order without the
 * undefined ones, a `dict`'s entries as own properties (even `__proto__`), anything else as is.
 */
export function pick<T>(struct: Struct<T, unknown>, value: T): T {
  if (struct.type === 'object' && isObj(value)) {
    const out: Obj = {};
    for (const [key, field] of Object.entries(struct.schema as ObjectSchema)) {
      const item = (value as Obj)[key];
      if (item !== undefined) out[key] = pick(field, item);
    }
    return out as T;
  }
  if (struct.type === 'dict' && isObj(value)) {
    const out: Obj = {};
    for (const [key, item] of Object.entries(value))
      setOwn(out, key, pick(struct.schema as Struct<unknown>, item));
    return out as T;
  }
  return value;
}

/**
 * Validates (with coercions) and returns fresh data, or throws the first failure as an
 * AuthValidationError. `at`: the field name of the value, when it is not a top-level parameter.
 */
export function check<T>(struct: Struct<T, unknown>, value: unknown, at?: string): T {
  const [error, result] =
    at === undefined
      ? validate(value, struct, { coerce: true })
      : validate({ [at]: value }, exact({ [at]: struct }), { coerce: true });
  if (error) {
    // The error is the first failure; its message is the failure's, after "At path: <path> -- ".
    // (Not `failures()`: that would go on validating, and coercing, the rest.)
    const field = error.path.join('.');
    const allowed =
      error.path.length === 0 ? error.message : error.message.slice(`At path: ${field} -- `.length);
    throw new AuthValidationError(field, allowed, error.value);
  }
  return pick(struct, (at === undefined ? result : (result as Obj)[at]) as T);
}
