import { GatewayError } from '../rpc/errors.ts';

/** Where in `value` an integer beyond 2^53 sits (the parse reads those as bigint), or undefined. */
function findBigint(value: unknown, path: string): { path: string; value: bigint } | undefined {
  if (typeof value === 'bigint') return { path, value };
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findBigint(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const found = findBigint((value as Record<string, unknown>)[key], `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
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
