// Request bodies as schemas (superstruct): a route declares the fields it reads as data, each
// rule's message names the field (`payload.id must be a string`), and `parseBody` hands the first
// failure to the service's own error. Fields a schema does not name are left alone; only a body's
// own members are read, so `__proto__` or `constructor` are data like any other name.
import { type Context, type ObjectSchema, type ObjectType, Struct, validate } from '@metamask/superstruct';

export { optional } from '@metamask/superstruct';

/** Where a failure sits in the body, as a client reads it: `payload.id`, `scopes.1`, or `body`. */
const pathOf = (context: Context) => context.path.join('.') || 'body';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field `check` answers true for; else `<field> <what check answered>` (`is required`). */
export function rule<T>(check: (value: unknown) => true | string): Struct<T, null> {
  return new Struct<T, null>({
    type: 'field',
    schema: null,
    validator: (value, context) => {
      const checked = check(value);
      return checked === true || `${pathOf(context)} ${checked}`;
    },
  });
}

/** A field whose value passes `test`; else `<field> must be <what>`. */
export function field<T>(what: string, test: (value: unknown) => boolean): Struct<T, null> {
  return rule<T>((value) => test(value) || `must be ${what}`);
}

/** An object with (at least) these fields, read as own members; other keys pass unchecked. */
export function fields<S extends ObjectSchema>(shape: S): Struct<ObjectType<S>, S> {
  return new Struct<ObjectType<S>, S>({
    type: 'fields',
    schema: shape,
    validator: (value, context) => isRecord(value) || `${pathOf(context)} must be an object`,
    *entries(value) {
      if (!isRecord(value)) return;
      for (const [key, struct] of Object.entries(shape))
        yield [key, Object.hasOwn(value, key) ? value[key] : undefined, struct];
    },
  });
}

/** A list whose every item is `item`. */
export function listOf<T>(item: Struct<T, unknown>): Struct<T[], null> {
  return new Struct<T[], null>({
    type: 'list',
    schema: null,
    validator: (value, context) => Array.isArray(value) || `${pathOf(context)} must be a list`,
    *entries(value) {
      if (Array.isArray(value)) for (const [i, entry] of value.entries()) yield [i, entry, item];
    },
  });
}

/** An object of names the client chooses (keys such as `__proto__` are data), every value `item`. */
export function recordOf<T>(item: Struct<T, unknown>): Struct<Record<string, T>, null> {
  return new Struct<Record<string, T>, null>({
    type: 'record',
    schema: null,
    validator: (value, context) => isRecord(value) || `${pathOf(context)} must be an object`,
    *entries(value) {
      if (isRecord(value)) for (const [key, entry] of Object.entries(value)) yield [key, entry, item];
    },
  });
}

/** One of a few words; else `<field> must be one of "a", "b"`. */
export function oneOf<const T extends string>(values: readonly T[]): Struct<T, null> {
  return field<T>(
    `one of ${values.map((v) => `"${v}"`).join(', ')}`,
    (v) => typeof v === 'string' && (values as readonly string[]).includes(v),
  );
}

/** A whole number from `min` to `max`. */
export function wholeNumber(min: number, max: number): Struct<number, null> {
  return field<number>(
    `a whole number from ${min} to ${max}`,
    (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max,
  );
}

export const string = field<string>('a string', (v) => typeof v === 'string');
export const nonEmptyString = field<string>('a non-empty string', (v) => typeof v === 'string' && v !== '');
export const boolean = field<boolean>('true or false', (v) => typeof v === 'boolean');

/**
 * `body` as `struct` types it (not copied: signatures are checked over what was sent); else the
 * error `refuse` makes of the first field at fault and its message (the service's own error: its
 * status and code stay the service's).
 */
export function parseBody<T>(
  struct: Struct<T, unknown>,
  body: unknown,
  refuse: (field: string, message: string) => Error,
): T {
  const [error, value] = validate(body, struct);
  if (!error) return value;
  const failure = error.failures()[0] ?? error;
  throw refuse(failure.path.join('.') || 'body', failure.message);
}
