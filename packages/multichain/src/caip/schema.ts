// The builders of this package's schemas (superstruct, in the style of docs/architecture.md
// "Validation: where a schema goes"): a schema is data, each rule carries the message a failure
// shows, and one function turns failures into this package's error (`assertShape`, -32602 with
// every failing path). Messages leave the path out: a ParamIssue carries it beside the message.
import { type ObjectSchema, type ObjectType, Struct, validate } from '@metamask/superstruct';
import { isPlainObject } from '@metamask/utils';
import { invalidParamsError, type ParamIssue } from './errors.ts';
import { own } from './own.ts';

export { optional } from '@metamask/superstruct';

/** A value `check` answers true for, else a failure with the message it answers. */
export function rule<T>(check: (value: unknown) => true | string): Struct<T, null> {
  return new Struct<T, null>({ type: 'rule', schema: null, validator: (value) => check(value) });
}

/** A value `test` accepts, else a failure saying `message`. */
export function field<T>(message: string, test: (value: unknown) => boolean): Struct<T, null> {
  return rule<T>((value) => test(value) || message);
}

/** A plain object whose own members named in `shape` are checked; others pass as they are. */
export function fields<S extends ObjectSchema>(shape: S, message: string): Struct<ObjectType<S>, S> {
  return new Struct<ObjectType<S>, S>({
    type: 'fields',
    schema: shape,
    validator: (value) => isPlainObject(value) || message,
    *entries(value) {
      if (isPlainObject(value))
        for (const key of Object.keys(shape)) yield [key, own(value, key), shape[key]];
    },
  });
}

/** A plain object whose every own value is `item` (keys such as `__proto__` are data). */
export function recordOf<T>(item: Struct<T, unknown>, message: string): Struct<Record<string, T>, null> {
  return new Struct<Record<string, T>, null>({
    type: 'recordOf',
    schema: null,
    validator: (value) => isPlainObject(value) || message,
    *entries(value) {
      if (isPlainObject(value)) for (const [key, entry] of Object.entries(value)) yield [key, entry, item];
    },
  });
}

export const string = field<string>('must be a string', (value) => typeof value === 'string');

export const stringArray = field<string[]>(
  'must be an array of strings',
  (value) => Array.isArray(value) && value.every((item) => typeof item === 'string'),
);

/** `value` as `struct` types it; else -32602 listing every failing path with its message. */
export function assertShape<T>(value: unknown, struct: Struct<T, unknown>): T {
  const [error, checked] = validate(value, struct);
  if (!error) return checked;
  const issues: ParamIssue[] = error.failures().map((failure) => ({
    path: failure.path.map(String),
    message: failure.message,
  }));
  throw invalidParamsError(issues);
}

/** The first failure's message when `value` does not fit `struct`, else the value as typed. */
export function firstFailure<T>(
  value: unknown,
  struct: Struct<T, unknown>,
): { reason: string } | { value: T } {
  const [error, checked] = validate(value, struct);
  return error ? { reason: error.failures()[0]?.message ?? error.message } : { value: checked };
}
