import { GatewayError } from '../rpc/errors.ts';
import { JsonNumberText } from '../rpc/exact-json.ts';

type Found<T> = { path: string; value: T } | undefined;

/** Where in `value` the first value `is` picks sits, or undefined. */
function find<T>(value: unknown, path: string, is: (value: unknown) => value is T): Found<T> {
  if (is(value)) return { path, value };
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = find(value[i], `${path}[${i}]`, is);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const found = find((value as Record<string, unknown>)[key], `${path}.${key}`, is);
    if (found) return found;
  }
  return undefined;
}

const isBigint = (value: unknown): value is bigint => typeof value === 'bigint';
const isRounded = (value: unknown): value is JsonNumberText => value instanceof JsonNumberText;

/** An integer beyond 2^53 (the parse reads those as bigint). */
const findBigint = (value: unknown, path: string) => find(value, path, isBigint);

/**
 * Check, before the method's own checks: a number with a fraction or an exponent that a double
 * would change (1e400 would be forwarded as null, 1e-400 as 0, 12345678901234567890.5 and
 * 0.10000000000000000001 rounded; the parse keeps such a number as its text) is refused with
 * -32602 before anything is charged: forwarded, it would be another number than the one sent.
 */
export function refuseRoundedNumbers(params: unknown[]) {
  const found = find(params, 'params', isRounded);
  if (!found) return;
  throw new GatewayError(
    'invalidParams',
    `${found.path}: the number ${found.value.text} cannot be passed on exactly (a double reads it as ${Number(found.value.text)}); send it as an integer or a string`,
  );
}

/**
 * Check: a JSON number a double cannot hold (an integer beyond 2^53, e.g. `minContextSlot`
 * 12345678901234567890) in what would be forwarded is refused with -32602 before anything is
 * charged: nodes and tools written in JavaScript read it rounded (the Solana ledger then refuses
 * 12345678901234567000 as "expected u64"), so its meaning would depend on who reads it. Rules that
 * rewrite such a number into a string (`prepare`, e.g. eth_getBlockReceipts' block number as hex)
 * are looked at after the rewrite.
 */
export function refuseInexactNumbers(params: unknown[], prepare?: (params: unknown[]) => unknown[]) {
  if (!findBigint(params, 'params')) return;
  const found = findBigint(prepare ? prepare(params) : params, 'params');
  if (!found) return;
  throw new GatewayError(
    'invalidParams',
    `${found.path}: the number ${found.value} is beyond 2^53 and cannot be passed on exactly; no value of this parameter is that large`,
  );
}
