// This package's schemas use the builders every Portico package shares (`@portico/http/schema`,
// docs/architecture.md "Validation: where a schema goes") in the voice of CAIP checks: a message
// leaves the path out (a ParamIssue carries it beside the message), an object is a plain object,
// and one function turns failures into this package's error (`assertShape`, -32602 with every
// failing path).
import { type Struct, validate } from '@metamask/superstruct';
import { isPlainObject } from '@metamask/utils';
import { bare, schemaBuilders } from '@portico/http/schema';
import { invalidParamsError, type ParamIssue } from './errors.ts';

export { optional } from '@portico/http/schema';

export const { rule, fields, recordOf, string } = schemaBuilders({ ...bare, isObject: isPlainObject });

/** A value `test` accepts, else a failure saying `message` (the whole of it). */
export function field<T>(message: string, test: (value: unknown) => boolean): Struct<T, null> {
  return rule<T>((value) => test(value) || message);
}

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
