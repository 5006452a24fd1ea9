/**
 * JSON text with bigints written as plain numbers, as the Solana RPC writes u64 values
 * (`rentEpoch` 18446744073709551615, large lamport balances). `@solana/kit` reads them back as
 * bigints.
 */
export function stringifyJson(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map((item) => stringifyJson(item ?? null)).join(',')}]`;
      const parts: string[] = [];
      for (const [key, item] of Object.entries(value)) {
        if (item !== undefined) parts.push(`${JSON.stringify(key)}:${stringifyJson(item)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return 'null';
  }
}
