// Portico's one set of schema builders (superstruct), for request bodies, CAIP objects, the auth
// library's parameters and the gateway's config: a schema is data, each rule carries the message a
// failure shows. Browser-safe (no Node import): browser packages import it as `@portico/http/schema`.
//
// What differs between those places is only how a failure is worded, so `schemaBuilders(voice)`
// makes the builders for one voice: a body says `payload.id must be a string`, a CAIP check says
// `must be a string` (the path travels beside it), the config says `networks[0].url must be …`.
// Fields a schema does not name are left alone; only an object's own members are read, so
// `__proto__` or `constructor` are data like any other name.
import {
  type Context,
  type Failure,
  type ObjectSchema,
  type ObjectType,
  Struct,
  validate,
} from '@metamask/superstruct';

export { optional } from '@metamask/superstruct';

/** How a package words its failures. */
export interface Voice {
  /** The message of `problem` (e.g. `must be a string`) about the value at `context`. */
  say: (problem: string, context: Context) => string;
  /** What `fields` and `recordOf` accept as an object; default: anything but null and arrays. */
  isObject?: (value: unknown) => value is Record<string, unknown>;
}

/** What a rule answers: true, the problem (worded by the voice), or a failure placed elsewhere. */
export type RuleAnswer = true | string | Partial<Failure>;

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The problem as it is, for checks whose answer is already the whole message. */
export const bare: Voice = { say: (problem) => problem };

/** Options of `fields`: the problem of a non-object, of unknown fields, and the fields checked first. */
export interface FieldsOptions<K extends string = string> {
  notObject?: string;
  /** Refuses fields the shape does not name, with the problem this words (else they pass unchecked). */
  onlyThese?: (unknown: string[], allowed: string[]) => string;
  /** Fields checked before the others (which follow in the order declared). */
  checkFirst?: readonly K[];
}

/** The builders of one voice (see the top of this file). */
export function schemaBuilders(voice: Voice) {
  const { say } = voice;
  const isObject = voice.isObject ?? isRecord;

  /** A value `check` answers true for; else the voice's wording of what it answered. */
  function rule<T>(check: (value: unknown, context: Context) => RuleAnswer): Struct<T, null> {
    return new Struct<T, null>({
      type: 'rule',
      schema: null,
      validator: (value, context) => {
        const answer = check(value, context);
        return typeof answer === 'string' ? say(answer, context) : answer;
      },
    });
  }

  /** A value `test` accepts; else `must be <what>`. */
  function field<T>(what: string, test: (value: unknown) => boolean): Struct<T, null> {
    return rule<T>((value) => test(value) || `must be ${what}`);
  }

  /** An object with (at least) these fields, read as own members; other keys pass unless `onlyThese`. */
  function fields<S extends ObjectSchema>(
    shape: S,
    options: string | FieldsOptions<keyof S & string> = {},
  ): Struct<ObjectType<S>, S> {
    const {
      notObject = 'must be an object',
      onlyThese,
      checkFirst = [],
    } = typeof options === 'string' ? { notObject: options } : options;
    const allowed = Object.keys(shape);
    const order = [...checkFirst, ...allowed.filter((key) => !checkFirst.includes(key))];
    return new Struct<ObjectType<S>, S>({
      type: 'fields',
      schema: shape,
      validator: (value, context) => {
        if (!isObject(value)) return say(notObject, context);
        const unknown = onlyThese ? Object.keys(value).filter((key) => !allowed.includes(key)) : [];
        return unknown.length === 0 || say(onlyThese!(unknown, allowed), context);
      },
      *entries(value) {
        if (!isObject(value)) return;
        for (const key of order) yield [key, Object.hasOwn(value, key) ? value[key] : undefined, shape[key]];
      },
    });
  }

  /** A list whose every item is `item`. */
  function listOf<T>(item: Struct<T, unknown>, notList = 'must be a list'): Struct<T[], null> {
    return new Struct<T[], null>({
      type: 'list',
      schema: null,
      validator: (value, context) => Array.isArray(value) || say(notList, context),
      *entries(value) {
        if (Array.isArray(value)) for (const [i, entry] of value.entries()) yield [i, entry, item];
      },
    });
  }

  /** An object of names the client chooses (keys such as `__proto__` are data), every value `item`. */
  function recordOf<T>(
    item: Struct<T, unknown>,
    notObject = 'must be an object',
  ): Struct<Record<string, T>, Struct<T, unknown>> {
    return new Struct<Record<string, T>, Struct<T, unknown>>({
      type: 'record',
      schema: item,
      validator: (value, context) => isObject(value) || say(notObject, context),
      *entries(value) {
        if (isObject(value)) for (const [key, entry] of Object.entries(value)) yield [key, entry, item];
      },
    });
  }

  /** One of a few words; else `must be one of "a", "b"`. */
  function oneOf<const T extends string>(values: readonly T[]): Struct<T, null> {
    return field<T>(
      `one of ${values.map((v) => `"${v}"`).join(', ')}`,
      (v) => typeof v === 'string' && (values as readonly string[]).includes(v),
    );
  }

  /** A whole number from `min` to `max`. */
  function wholeNumber(min: number, max: number): Struct<number, null> {
    return field<number>(
      `a whole number from ${min} to ${max}`,
      (v) => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max,
    );
  }

  return {
    rule,
    field,
    fields,
    listOf,
    recordOf,
    oneOf,
    wholeNumber,
    string: field<string>('a string', (v) => typeof v === 'string'),
    nonEmptyString: field<string>('a non-empty string', (v) => typeof v === 'string' && v !== ''),
    boolean: field<boolean>('true or false', (v) => typeof v === 'boolean'),
  };
}

/** What `layered` adds to a struct; the answers of `before` and `after` are whole messages. */
export interface Layers<T> {
  /** Turns the value as written into the value checked (defaults, `${VAR}` reading, a copy). */
  prepare?: (value: unknown, context: Context) => unknown;
  /** A check before the struct's own (e.g. a value its `prepare` could not fill). */
  before?: (value: unknown, context: Context) => RuleAnswer;
  /** A check once the struct's own passed, before its entries (e.g. on a list as a whole). */
  after?: (value: never, context: Context) => RuleAnswer;
  /** True for a value complete as it is: its entries are not checked. */
  complete?: (value: unknown) => boolean;
  /** Rules across the entries, once each passed its own. */
  refine?: (value: T, context: Context) => RuleAnswer;
}

/** `struct` with a package's own additions layered on: the struct is otherwise the same. */
export function layered<T, S>(struct: Struct<T, S>, layers: Layers<T>): Struct<T, S> {
  const { prepare, before, after, complete, refine } = layers;
  return new Struct<T, S>({
    ...struct,
    coercer: prepare ?? struct.coercer,
    validator: (value, context) => {
      const early = before ? before(value, context) : true;
      if (early !== true) return early;
      const failures = [...struct.validator(value, context)];
      return failures.length > 0 || !after ? failures : after(value as never, context);
    },
    entries: (value, context) => (complete?.(value) ? [][Symbol.iterator]() : struct.entries(value, context)),
    refiner: (value, context) => {
      const failures = [...struct.refiner(value, context)];
      return failures.length > 0 || !refine ? failures : refine(value, context);
    },
  });
}

/** Where a failure sits in a request body, as a client reads it: `payload.id`, `scopes.1`, or `body`. */
const bodyVoice: Voice = { say: (problem, context) => `${context.path.join('.') || 'body'} ${problem}` };

/** The builders of request bodies: each message names the field (`payload.id must be a string`). */
export const { rule, field, fields, listOf, recordOf, oneOf, wholeNumber, string, nonEmptyString, boolean } =
  schemaBuilders(bodyVoice);

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
