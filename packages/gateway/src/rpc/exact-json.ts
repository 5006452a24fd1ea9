/**
 * JSON that keeps integers beyond 2^53 exact. Solana answers u64 values as plain JSON numbers
 * (`rentEpoch` 18446744073709551615, lamports of large accounts, `getSupply`); `JSON.parse` would
 * round them, and the gateway would hand clients wrong numbers. Such integers are read as bigint
 * and written back as the same digits. Text without a 16-digit run takes the plain fast path.
 */
import { randomBytes } from 'node:crypto';

// A marker no real string carries (a NUL and a per-process nonce).
const NONCE = randomBytes(6).toString('hex');
const MARK = `\u0000int:${NONCE}:`;
const MARK_IN_JSON = new RegExp(`"\\\\u0000int:${NONCE}:(-?\\d+)"`, 'g');

/** Quotes, as marked strings, the integer literals (outside strings) that a double cannot hold. */
function markBigIntegers(text: string): string {
  let out = '';
  let last = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      i++;
      while (i < text.length) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      i++;
      continue;
    }
    if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      i++;
      while (i < text.length && /[0-9.eE+-]/.test(text[i])) i++;
      const token = text.slice(start, i);
      if (/^-?\d{16,}$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += `${text.slice(last, start)}"\\u0000int:${NONCE}:${token}"`;
        last = i;
      }
      continue;
    }
    i++;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** `JSON.parse`, with integers beyond Number.MAX_SAFE_INTEGER read as bigint. */
export function parseJsonExact(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  return JSON.parse(markBigIntegers(text), (_key, value) =>
    typeof value === 'string' && value.startsWith(MARK) ? BigInt(value.slice(MARK.length)) : value,
  );
}

/** `JSON.stringify`, with bigints written as plain integer literals. */
export function stringifyJsonExact(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  const text = JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? `${MARK}${item}` : item));
  return text.replace(MARK_IN_JSON, '$1');
}
