import { stringifyJsonExact } from './exact-json.ts';

const MAX_SHOWN = 80;

/**
 * A value from a request as an error message shows it: its JSON type and at most 80 characters of
 * its JSON. Safe for anything a request body can hold (integers beyond 2^53 are bigints, which
 * JSON.stringify refuses; a member may be a megabyte long).
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value === 'bigint' ? 'number' : typeof value;
  const text = stringifyJsonExact(value) ?? String(value);
  return `${type} ${text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text}`;
}
