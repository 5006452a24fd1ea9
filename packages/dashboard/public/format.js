// Formatting and input parsing shared by the dashboard's views. No DOM here.

const whole = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const oneDecimal = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

export const formatNumber = (n) => whole.format(n);
export const formatCompact = (n) => compact.format(n);
export const formatDecimal = (n) => oneDecimal.format(n);

/** YYYY-MM-DD of a moment in UTC, the gateway's day for balances and usage. */
export const utcDay = (ms) => new Date(ms).toISOString().slice(0, 10);

/** The `count` UTC days ending today, oldest first. */
export function lastDays(count, now = Date.now()) {
  const days = [];
  for (let i = count - 1; i >= 0; i--) days.push(utcDay(now - i * 86_400_000));
  return days;
}

/** `2026-11-22 14:05 UTC` */
export function formatUtc(iso) {
  const date = new Date(iso);
  return `${date.toISOString().slice(0, 10)} ${date.toISOString().slice(11, 16)} UTC`;
}

/** `3 h 12 min` until a moment (or `now`). */
export function formatUntil(iso, now = Date.now()) {
  const minutes = Math.max(0, Math.round((new Date(iso).getTime() - now) / 60_000));
  const hours = Math.floor(minutes / 60);
  if (hours === 0) return minutes <= 1 ? 'less than a minute' : `${minutes} min`;
  return `${hours} h ${minutes % 60} min`;
}

/** What a JSON-RPC error code recorded in usage means (the gateway's codes; others come from the node). */
const ERROR_MEANINGS = new Map([
  [-32700, 'parse error: the body was not JSON'],
  [-32600, 'invalid request'],
  [-32601, 'method not found or not allowed'],
  [-32602, 'invalid parameters'],
  [-32603, 'internal error or upstream node unavailable'],
  [-32016, 'unauthorized (EVM)'],
  [-32002, 'forbidden (EVM)'],
  [-32005, 'limit exceeded: daily credits or per-second cap (EVM)'],
  [-32014, 'batch too large (EVM)'],
  [-32021, 'body too large (EVM)'],
  [-32040, 'unauthorized (Solana)'],
  [-32041, 'forbidden (Solana)'],
  [-32042, 'daily credits exhausted (Solana)'],
  [-32043, 'per-second cap reached (Solana)'],
  [-32044, 'batch too large (Solana)'],
  [-32045, 'body too large (Solana)'],
  [3, 'execution reverted'],
  [-32000, "node's own error (e.g. reverted, nonce too low)"],
]);

export function errorMeaning(code) {
  return ERROR_MEANINGS.get(code) ?? "error answered by the chain's node";
}

/**
 * Reads a whole number typed in a form. Separators people type (`3,000,000`, `3 000 000`,
 * `3_000_000`) are accepted. Returns `{ value }` or `{ error }`, the error naming what is wrong
 * with the text as typed.
 */
export function parseWholeNumber(text, { label, min = 0, optional = false, emptyMeans = '' }) {
  const typed = text.trim();
  if (typed === '') {
    if (optional) return { value: null };
    return {
      error: `${label} is required: enter a whole number of credits${min > 0 ? ` of at least ${min}` : ''}.`,
    };
  }
  const digits = typed.replace(/(?<=\d)[\s,_](?=\d)/g, '');
  if (/^-\s*\d/.test(digits)) {
    return { error: `${label} cannot be negative; you typed "${typed}".` };
  }
  if (/^\d*[.]\d+$/.test(digits)) {
    return { error: `${label} must be a whole number of credits; "${typed}" has a fraction.` };
  }
  if (!/^\d+$/.test(digits)) {
    return { error: `${label} must be a whole number such as 3000000; "${typed}" is not a number.` };
  }
  const value = Number(digits);
  if (!Number.isSafeInteger(value)) {
    return { error: `${label} is too large; use at most ${formatNumber(Number.MAX_SAFE_INTEGER)}.` };
  }
  if (value < min) {
    return {
      error: `${label} must be at least ${formatNumber(min)}${emptyMeans ? `; leave it empty for ${emptyMeans}` : ''}.`,
    };
  }
  return { value };
}

/**
 * A curl command calling `url` with a first request of the network's kind; with `secret`, the key
 * secret goes along as HTTP Basic with an empty user name (the gateway accepts any).
 * @param {string} url
 * @param {'evm' | 'solana'} kind
 * @param {{ secret?: string }} [options]
 */
export function curlExample(url, kind, { secret } = {}) {
  const body =
    kind === 'solana'
      ? '{"jsonrpc":"2.0","id":1,"method":"getSlot"}'
      : '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}';
  const auth = secret ? ` -u ':${secret}'` : '';
  return `curl -s${auth} -X POST -H 'content-type: application/json' \\\n  --data '${body}' \\\n  '${url}'`;
}
