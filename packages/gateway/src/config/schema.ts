import {
  type Context,
  type ObjectSchema,
  type ObjectType,
  optional as orUndefined,
  Struct,
  validate,
} from '@metamask/superstruct';
import { bare, isRecord, layered, schemaBuilders } from '@portico/http/schema';
import { BaseError } from '../base-error.ts';

// Configuration schemas on the builders every Portico package shares (`@portico/http/schema`),
// with what a config adds layered on top: every field is declared once, with its default
// (`withDefault`), `${VAR}` reading (`fromEnv`), its rule and the message that names it
// (`networks[0].timeoutMs must be …`).

/** A configuration the gateway cannot start with; the message names the field and the rule. */
export class ConfigError extends BaseError {
  override readonly name: string = 'ConfigError';

  constructor(message: string) {
    super('invalid_config', message);
  }
}

/** Where a value sits in the config, as users write it: `networks[0].cache.maxEntries`. */
export function pathOf(path: readonly unknown[]): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : text ? `.${part}` : String(part);
  return text || 'config';
}

const at = (context: Context) => pathOf(context.path);

/** The config's voice: a problem follows the field's path (`networks[0].url must be …`). */
const config = schemaBuilders({ say: (problem, context) => `${at(context)} ${problem}` });
/** For checks that word the whole message themselves (given the field's path). */
const whole = schemaBuilders(bare);

/** The config object a field sits in (its siblings), for rules that look at another field. */
export const parentOf = (context: Context) =>
  (context.branch[context.branch.length - 2] ?? {}) as Record<string, unknown>;

/** The whole config, for rules across sections (e.g. whether `adminToken` is set). */
export const rootOf = (context: Context) => (context.branch[0] ?? {}) as Record<string, unknown>;

export { isRecord };

/**
 * A field: `check` answers true or the message (given the field's path); `prepare` turns the
 * value as written into the value checked (defaults, `${VAR}` substitution, lower case).
 */
export function field<T>(
  check: (value: unknown, at: string, context: Context) => true | string,
  prepare: (value: unknown, context: Context) => unknown = (value) => value,
): Struct<T, null> {
  return layered(
    whole.rule<T>((value, context) => check(value, at(context), context)),
    { prepare },
  );
}

/**
 * A field that may be left out, with a default (a value, or one computed from the config around
 * it). `null` counts as left out unless `keepNull` (then it is checked like any value).
 */
export function withDefault<T, S>(
  struct: Struct<T, S>,
  fallback: Exclude<T, undefined> | ((context: Context) => Exclude<T, undefined>),
  options: { keepNull?: boolean } = {},
): Struct<Exclude<T, undefined>, S> {
  const absent = (value: unknown) => value === undefined || (value === null && !options.keepNull);
  return layered(struct as Struct<Exclude<T, undefined>, S>, {
    prepare: (value, context) => {
      const prepared = absent(value) ? value : struct.coercer(value, context);
      if (!absent(prepared)) return prepared;
      return typeof fallback === 'function' ? (fallback as (context: Context) => T)(context) : fallback;
    },
  });
}

export const integer = (min: number, max: number) =>
  field<number>(
    (value, at) =>
      (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) ||
      `${at} must be an integer from ${min} to ${max}`,
  );

export const isOptionalString = (value: unknown, at: string) =>
  value === undefined || typeof value === 'string' || `${at} must be a string`;

export const optionalString = field<string | undefined>(isOptionalString, (value) =>
  value === null ? undefined : value,
);

/** An optional string kept in lower case (host names). */
export const optionalLowerCase = field<string | undefined>(isOptionalString, (value) =>
  value === null ? undefined : typeof value === 'string' ? value.toLowerCase() : value,
);

export const { boolean } = config;

/** One of a few words; `message` words the rule (default: `must be one of a, b, got "c"`). */
export function oneOf<const T extends string>(allowed: readonly T[], message?: string) {
  return field<T>(
    (value, at) =>
      (typeof value === 'string' && (allowed as readonly string[]).includes(value)) ||
      `${at} ${message ?? `must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`}`,
  );
}

/** A value `${VAR}` substitution could not fill: reported at the field, naming the variable. */
class MissingVariable {
  constructor(readonly name: string) {}
}

/** `text` with every `${VAR}` replaced from `env`, or the first variable that is not set. */
export function fillFromEnv(text: string, env: NodeJS.ProcessEnv): string | { missing: string } {
  let missing: string | undefined;
  const filled = text.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const found = env[name];
    missing ??= found === undefined ? name : undefined;
    return found ?? '';
  });
  return missing === undefined ? filled : { missing };
}

/** `${VAR}` in a string is replaced by the environment variable, so secrets stay out of the file. */
export function fromEnv<T, S>(struct: Struct<T, S>, env: NodeJS.ProcessEnv): Struct<T, S> {
  return layered(struct, {
    prepare: (value, context) => {
      if (typeof value !== 'string') return struct.coercer(value, context);
      const text = fillFromEnv(value, env);
      return typeof text === 'string' ? struct.coercer(text, context) : new MissingVariable(text.missing);
    },
    before: (value, context) =>
      !(value instanceof MissingVariable) ||
      `${at(context)} uses \${${value.name}} but that environment variable is not set`,
  });
}

/** A list; `check` words the rule of the whole list, `item` each entry. */
export function list<T>(
  item: Struct<T, unknown>,
  check: (value: unknown[], at: string, context: Context) => true | string,
  notAList: (at: string) => string,
): Struct<T[], null> {
  return layered(whole.listOf(item), {
    prepare: (value) => (Array.isArray(value) ? [...value] : value),
    before: (value, context) => Array.isArray(value) || notAList(at(context)),
    after: (value: unknown[], context) => check(value, at(context), context),
  });
}

/**
 * A section: an object with exactly these fields (unknown ones are named with the allowed list).
 * `prepare` turns what was written (e.g. absent, `true`, `false`) into the object checked;
 * `complete` marks a prepared object as final (its fields are not checked, e.g. `cache: false`).
 */
export function section<S extends ObjectSchema>(
  shape: S,
  options: {
    /** Turns what was written (e.g. absent, `true`, `false`) into the object checked. */
    prepare?: (value: unknown, context: Context) => unknown;
    /** A rule on the written object as a whole, checked before its fields. */
    check?: (value: Record<string, unknown>, at: string) => true | string;
    /** True for an object complete as it is: its fields are not checked nor completed. */
    complete?: (value: Record<string, unknown>) => boolean;
    /** Rules across the section's fields, checked once each field passed its own. */
    refine?: (value: ObjectType<S>, at: string, context: Context) => true | string;
    /** Fields checked before the others (which follow in the order declared); the first problem is reported. */
    checkFirst?: readonly (keyof S & string)[];
  } = {},
): Struct<ObjectType<S>, S> {
  const { prepare, check, complete, refine, checkFirst } = options;
  return layered(
    config.fields(shape, {
      checkFirst,
      onlyThese: (unknown, allowed) =>
        `has unknown field(s): ${unknown.join(', ')} (allowed: ${allowed.join(', ')})${didYouMean(unknown, allowed)}`,
    }),
    {
      prepare: (value, context) => {
        const prepared = prepare ? prepare(value, context) : value;
        return prepared === value && isRecord(value) ? { ...value } : prepared;
      },
      after: check && ((value: Record<string, unknown>, context) => check(value, at(context))),
      complete: complete && ((value) => isRecord(value) && complete(value)),
      refine: refine && ((value, context) => refine(value, at(context), context)),
    },
  );
}

/** A field or section that may be left out: `absent` values (default undefined and null) become undefined. */
export function optional<T>(
  struct: Struct<T, unknown>,
  absent: (value: unknown) => boolean = (value) => value === undefined || value === null,
): Struct<T | undefined, unknown> {
  return layered(orUndefined(struct), {
    prepare: (value, context) => (absent(value) ? undefined : struct.coercer(value, context)),
  });
}

/** Checks and completes `raw` against `schema`; throws ConfigError with the first problem's message. */
export function parseWith<T>(raw: unknown, schema: Struct<T, unknown>): T {
  const [error, value] = validate(raw, schema, { coerce: true });
  if (error) throw new ConfigError(error.failures()[0]?.message ?? error.message);
  return value;
}

/** `; did you mean X?` for the first unknown name close to an allowed one (a typo), else nothing. */
export function didYouMean(unknown: readonly string[], allowed: readonly string[]): string {
  for (const name of unknown) {
    let best: { name: string; distance: number } | undefined;
    for (const candidate of allowed) {
      const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
      if (!best || distance < best.distance) best = { name: candidate, distance };
    }
    // A typo: a few letters off, never more than a third of the name.
    if (best && best.distance <= Math.max(1, Math.min(3, Math.floor(name.length / 3))))
      return `; did you mean ${best.name} (for ${name})?`;
  }
  return '';
}

/** Levenshtein distance, counting a swap of two neighbouring letters as one edit. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** An object whose keys are names the user chooses (e.g. verifiers by name), each value checked by `item`. */
export function record<T>(
  item: Struct<T, unknown>,
  checkKey: (key: string, at: string) => true | string = () => true,
): Struct<Record<string, T>, unknown> {
  return layered(config.recordOf(item), {
    prepare: (value) => (isRecord(value) ? { ...value } : value),
    after: (value: Record<string, unknown>, context) => {
      for (const key of Object.keys(value)) {
        const checked = checkKey(key, `${at(context)}.${key}`);
        if (checked !== true) return checked;
      }
      return true;
    },
  });
}

/**
 * A value written either as a string (checked by `text`, e.g. a URL) or as an object (checked by
 * `object`, a section with more settings), e.g. an upstream as its URL or as `{ url, maxConcurrency }`.
 */
export function textOrSection<T, O, S>(text: Struct<T, null>, object: Struct<O, S>): Struct<T | O, null> {
  const isText = (value: unknown) => typeof value === 'string' || value instanceof MissingVariable;
  return new Struct<T | O, null>({
    type: 'textOrSection',
    schema: null,
    coercer: (value, context) =>
      isText(value) ? text.coercer(value, context) : object.coercer(value, context),
    validator: (value, context) =>
      isText(value) ? text.validator(value, context) : object.validator(value, context),
    *entries(value, context) {
      if (!isText(value)) yield* object.entries(value, context);
    },
    refiner: (value, context) => (isText(value) ? true : object.refiner(value as O, context)),
  });
}
