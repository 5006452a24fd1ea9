// The building blocks of the parameter schemas: the builders every Portico package shares
// (`@portico/http/schema`) in a voice where a failure's message is the text of what is allowed (and,
// where the value must not be echoed, a stand-in as its value), so `check` turns the first one into
// the AuthValidationError users have always seen: `Invalid <field>: <value>. Allowed: <what is allowed>`.
import { type ObjectSchema, type ObjectType, type Struct, validate } from '@metamask/superstruct';
import { bare, isRecord, layered, schemaBuilders } from '@portico/http/schema';
import { AuthValidationError } from '../errors.ts';
import { setOwn } from '../own.ts';

const allowedText = schemaBuilders(bare);

type Obj = Record<string, unknown>;

/** A plain-data object: not null, not an array. */
export const isObj: (v: unknown) => v is Obj = isRecord;

export function list(values: readonly string[]): string {
  return values.join(', ');
}

/** A failure at `path` (not the value's own) with `value` shown; `undefined` shows as "missing". */
export function failAt(path: readonly unknown[], allowed: string, value?: unknown) {
  return { path: [...path], message: allowed, value };
}

/** A leaf value: `test` answers true, or the text of what is allowed (or a failure of `failAt`). */
export const { rule } = allowedText;

export function oneOf<const T extends string>(values: readonly T[]): Struct<T, null> {
  return rule<T>((v) => (typeof v === 'string' && values.includes(v as T)) || list(values));
}

/** Any plain-data object (a condition for coercions). */
export const anObject = rule<Record<string, unknown>>((v) => isObj(v) || 'an object');

export const text = rule<string>((v) => typeof v === 'string' || 'a string');

export const nonEmptyText = rule<string>(
  (v) => (typeof v === 'string' && v.trim() !== '') || 'a non-empty string',
);

export const flag = rule<boolean>((v) => typeof v === 'boolean' || 'true or false');

/** A whole number from `min` up (to `max`), else `allowed`. */
export function wholeNumber(
  allowed: string,
  min: number,
  max = Number.POSITIVE_INFINITY,
): Struct<number, null> {
  return rule<number>(
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
  return layered(allowedText.fields(schema), {
    // A copy of the own fields: coercions below (a normalized chain id) must not write into the
    // caller's object, and nothing inherited counts as given.
    prepare: (value) => (isObj(value) ? { ...value } : value),
    // The v6 addressing: a non-object or an unknown key is named by the object's label.
    before(value, ctx) {
      const label = options.name ?? ctx.path.join('.');
      if (!isObj(value)) return failAt([label], options.shape ?? 'an object', value);
      const unknown = Object.keys(value).find((key) => !known.includes(key));
      return (
        unknown === undefined ||
        failAt([label, unknown], `known fields of ${label}: ${listed}`, value[unknown])
      );
    },
  });
}

/** An object of any keys whose values are all `value`; `shape` is what a non-object is told. */
export function dict<T>(
  value: Struct<T, unknown>,
  shape: string,
): Struct<Record<string, T>, Struct<T, unknown>> {
  return allowedText.recordOf(value, shape);
}

/**
 * The validated value as fresh data: an `exact` object's fields in schema order without the
 * undefined ones, a `dict`'s entries as own properties (even `__proto__`), anything else as is.
 */
export function pick<T>(struct: Struct<T, unknown>, value: T): T {
  if (struct.type === 'fields' && isObj(value)) {
    const out: Obj = {};
    for (const [key, field] of Object.entries(struct.schema as ObjectSchema)) {
      const item = (value as Obj)[key];
      if (item !== undefined) out[key] = pick(field, item);
    }
    return out as T;
  }
  if (struct.type === 'record' && isObj(value)) {
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
