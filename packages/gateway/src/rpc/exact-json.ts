/**
 * JSON that keeps numbers exact, read within limits.
 *
 * - Solana answers u64 values as plain JSON numbers (`rentEpoch` 18446744073709551615, lamports of
 *   large accounts); `JSON.parse` would round them. Integers a double cannot hold are read as
 *   bigint and written back as the same digits.
 * - A request's `id` may be any JSON number (`12345678901234567890`, `1.0`, `1e3`): it is kept as
 *   its text and echoed byte for byte.
 * - A request body is scanned once, before `JSON.parse` builds anything, for its nesting depth and
 *   (for a batch) its number of items, so that a hostile body is refused at the cost of reading a
 *   few hundred bytes rather than materialising 170,000 objects or overflowing the stack later.
 *
 * The scan finds the numbers to keep and rewrites each into a marked string (a NUL and a
 * per-process nonce no real string carries) that the parse turns back into its exact form.
 */
import { randomBytes } from 'node:crypto';
import { BaseError } from '../base-error.ts';
import {
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COMMA,
  isDigit,
  isSpace,
  MINUS,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
  stringEnd,
} from './json-scan.ts';

const NONCE = randomBytes(6).toString('hex');
/** Marks an integer read as bigint. */
const INTEGER_MARK = `\u0000int:${NONCE}:`;
/** Marks a number kept as its text (request ids). */
const NUMBER_MARK = `\u0000num:${NONCE}:`;
/** Marks a number of a request that a double would change (read as a JsonNumberText, refused). */
const ROUNDED_MARK = `\u0000rnd:${NONCE}:`;
/** The marks as they are written inside a JSON string. */
const INTEGER_MARK_JSON = JSON.stringify(INTEGER_MARK).slice(1, -1);
const NUMBER_MARK_JSON = JSON.stringify(NUMBER_MARK).slice(1, -1);
const ROUNDED_MARK_JSON = JSON.stringify(ROUNDED_MARK).slice(1, -1);
/** Either mark as JSON.stringify writes it, around the number text it carries. */
const MARK_IN_JSON = new RegExp(`"\\\\u0000(?:int|num):${NONCE}:([-+.eE0-9]+)"`, 'g');

const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const JSON_INTEGER = /^-?(0|[1-9]\d*)$/;

/** A JSON number kept as the text it was written with (a request id echoed byte for byte). */
export class JsonNumberText {
  constructor(readonly text: string) {}

  toJSON() {
    numberTextsWritten = true;
    return `${NUMBER_MARK}${this.text}`;
  }
}

/** Set while stringifying when a JsonNumberText was written (its mark must be replaced). */
let numberTextsWritten = false;

/** The text was within the scan's limits; which exact numbers it marked. */
type Scanned = { text: string; integers: boolean; numberTexts: boolean };

export type JsonLimits = {
  /** Deepest nesting of arrays and objects allowed. */
  maxDepth: number;
  /** Most items of a top-level array (a batch). */
  maxItems: number;
};

/** A body beyond one of the limits; nothing of it was parsed. */
export class JsonLimitExceeded extends BaseError {
  override readonly name: string = 'JsonLimitExceeded';
  constructor(
    readonly limit: keyof JsonLimits,
    readonly value: number,
  ) {
    super('json_limit', `JSON beyond ${limit} ${value}`);
  }
}

/** Characters a JSON number token may contain after its first. */
const isNumberPart = (c: number) =>
  isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;

/** Whether the key string at `start..end` (quotes included) is "id", escaped or not. */
function isIdKey(text: string, start: number, end: number): boolean {
  if (end - start === 3) return text.charCodeAt(start + 1) === 0x69 && text.charCodeAt(start + 2) === 0x64;
  const raw = text.slice(start, end + 1);
  if (!raw.includes('\\')) return false;
  try {
    return JSON.parse(raw) === 'id';
  } catch {
    return false;
  }
}

/**
 * One pass over JSON text (strings skipped with indexOf): checks the limits, marks integers beyond
 * 2^53 and, with `requestIds`, the `id` numbers of request objects (the top-level object, or the
 * objects of a top-level array) whose text a double would not give back. Invalid JSON is left for
 * `JSON.parse` to refuse.
 */
function scan(text: string, limits: Partial<JsonLimits>, requestIds: boolean): Scanned {
  const maxDepth = limits.maxDepth ?? Number.POSITIVE_INFINITY;
  const maxItems = limits.maxItems ?? Number.POSITIVE_INFINITY;
  const length = text.length;
  let i = 0;
  while (i < length && isSpace(text.charCodeAt(i))) i++;
  const topArray = text.charCodeAt(i) === OPEN_ARRAY;
  const requestDepth = requestIds ? (topArray ? 2 : 1) : -1;
  let depth = 0;
  let commas = 0;
  // Inside a request object: whether the next string is a member name, and the last one was "id".
  let inRequest = false;
  let expectKey = false;
  let keyIsId = false;
  let out = '';
  let last = 0;
  let integers = false;
  let numberTexts = false;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      if (expectKey && depth === requestDepth) {
        keyIsId = isIdKey(text, i, end);
        expectKey = false;
      }
      i = end + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (depth > maxDepth) throw new JsonLimitExceeded('maxDepth', maxDepth);
      if (depth === requestDepth) {
        inRequest = c === OPEN_OBJECT;
        expectKey = inRequest;
        keyIsId = false;
      }
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === requestDepth) inRequest = false;
      if (--depth < 0) break; // a closer with nothing open: JSON.parse refuses it
      i++;
    } else if (c === COMMA) {
      if (depth === 1 && topArray && ++commas >= maxItems) throw new JsonLimitExceeded('maxItems', maxItems);
      if (depth === requestDepth && inRequest) expectKey = true;
      i++;
    } else if (c === MINUS || isDigit(c)) {
      let end = i + 1;
      // Whether the number has a fraction or an exponent (an integer of < 16 digits is exact).
      let written = false;
      while (end < length) {
        const d = text.charCodeAt(end);
        if (!isNumberPart(d)) break;
        written ||= d === 0x2e || d === 0x65 || d === 0x45;
        end++;
      }
      let mark: string | undefined;
      if (inRequest && keyIsId && depth === requestDepth) {
        const token = text.slice(i, end);
        if (JSON_NUMBER.test(token) && String(Number(token)) !== token) mark = NUMBER_MARK_JSON;
        numberTexts ||= mark !== undefined;
      } else if (written && requestIds && depth > requestDepth) {
        // 1e400, 1e-400, 12345678901234567890.0, 0.10000000000000000001: a double would pass on
        // another number than the one sent (Infinity is even written as null). Only inside a
        // request's members: a request, or its params, that is a number stays an invalid request.
        const token = text.slice(i, end);
        if (JSON_NUMBER.test(token) && !sameNumber(token, String(Number(token)))) mark = ROUNDED_MARK_JSON;
        integers ||= mark !== undefined;
      } else if (end - i >= 16) {
        const token = text.slice(i, end);
        if (JSON_INTEGER.test(token) && !Number.isSafeInteger(Number(token))) mark = INTEGER_MARK_JSON;
        integers ||= mark !== undefined;
      }
      if (mark !== undefined) {
        out += `${text.slice(last, i)}"${mark}${text.slice(i, end)}"`;
        last = end;
      }
      i = end;
    } else {
      i++;
    }
  }
  return { text: last === 0 ? text : out + text.slice(last), integers, numberTexts };
}

const reviveIntegers = (_key: string, value: unknown) =>
  typeof value !== 'string'
    ? value
    : value.startsWith(INTEGER_MARK)
      ? BigInt(value.slice(INTEGER_MARK.length))
      : value.startsWith(ROUNDED_MARK)
        ? new JsonNumberText(value.slice(ROUNDED_MARK.length))
        : value;

/** A JSON number's value as its digits (no leading or trailing zeros) and where its point goes. */
function decimal(token: string): { negative: boolean; digits: string; point: number } {
  const negative = token.startsWith('-');
  const [mantissa, exponent = '0'] = token.slice(negative ? 1 : 0).split(/[eE]/);
  const [whole, fraction = ''] = mantissa.split('.');
  let digits = whole + fraction;
  let point = whole.length + Number(exponent);
  const leading = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leading).replace(/0+$/, '');
  point -= leading;
  return digits === '' ? { negative: false, digits, point: 0 } : { negative, digits, point };
}

/** Whether two JSON number texts (or a double's `String`) name the same number. */
function sameNumber(sent: string, read: string): boolean {
  if (read === 'Infinity' || read === '-Infinity') return false;
  const a = decimal(sent);
  const b = decimal(read);
  return a.negative === b.negative && a.digits === b.digits && a.point === b.point;
}

function parseScanned(scanned: Scanned): unknown {
  return scanned.integers ? JSON.parse(scanned.text, reviveIntegers) : JSON.parse(scanned.text);
}

/** `JSON.parse`, with integers beyond Number.MAX_SAFE_INTEGER read as bigint (upstream answers). */
export function parseJsonExact(text: string): unknown {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  return parseScanned(scan(text, {}, false));
}

/**
 * Parses a JSON-RPC request body: throws JsonLimitExceeded beyond `limits` (before parsing) and
 * SyntaxError for text that is not JSON. Integers beyond 2^53 are bigint; an `id` number whose
 * text a double would change is a JsonNumberText, and so is any other number with a fraction or
 * an exponent that a double would change (for the pipeline to refuse: `refuseRoundedNumbers`).
 */
export function parseRequestJson(text: string, limits: JsonLimits): unknown {
  const scanned = scan(text, limits, true);
  const value = parseScanned(scanned);
  if (scanned.integers) {
    for (const item of Array.isArray(value) ? value : [value]) markBigIntegerParams(item);
  }
  if (scanned.numberTexts) {
    for (const item of Array.isArray(value) ? value : [value]) restoreNumberTextId(item);
  }
  return value;
}

/** The `params` of request items whose body held an integer beyond 2^53: only they need a look. */
const PARAMS_WITH_BIG_INTEGERS = new WeakSet<object>();

function markBigIntegerParams(item: unknown) {
  const params =
    typeof item === 'object' && item !== null ? (item as { params?: unknown }).params : undefined;
  if (typeof params === 'object' && params !== null) PARAMS_WITH_BIG_INTEGERS.add(params);
}

/**
 * Whether these parameters (as `parseRequestJson` read them) may hold a bigint or a rounded number
 * (a JsonNumberText): false for every request whose body had neither, so the request path does not
 * walk them.
 */
export const mayHoldBigIntegers = (params: object): boolean => PARAMS_WITH_BIG_INTEGERS.has(params);

function restoreNumberTextId(item: unknown) {
  if (typeof item !== 'object' || item === null || !Object.hasOwn(item, 'id')) return;
  const request = item as { id: unknown };
  if (typeof request.id === 'string' && request.id.startsWith(NUMBER_MARK)) {
    request.id = new JsonNumberText(request.id.slice(NUMBER_MARK.length));
  }
}

/** `JSON.stringify`, with bigints written as plain integer literals and JsonNumberTexts as their text. */
export function stringifyJsonExact(value: unknown): string {
  numberTextsWritten = false;
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    text = JSON.stringify(value, (_key, item) =>
      typeof item === 'bigint' ? `${INTEGER_MARK}${item}` : item,
    );
    return text.replace(MARK_IN_JSON, '$1');
  }
  return numberTextsWritten ? text.replace(MARK_IN_JSON, '$1') : text;
}

/**
 * The `id` of a request body refused before it was parsed (nested too deep): read from the members
 * of the top-level object without building anything (nested values are skipped by counting
 * brackets), so that the refusal still carries the id. A string, a number (kept as its text when a
 * double would change it) or null; undefined when the body is not an object, has no complete id or
 * its id is not a valid one.
 */
export function readRequestId(text: string): string | number | JsonNumberText | null | undefined {
  const length = text.length;
  let i = 0;
  while (i < length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
  i++;
  let depth = 1;
  let expectKey = true;
  let keyIsId = false;
  let id: string | number | JsonNumberText | null | undefined;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return id;
      if (depth === 1 && expectKey) {
        keyIsId = isIdKey(text, i, end);
        expectKey = false;
      } else if (depth === 1 && keyIsId) {
        try {
          id = JSON.parse(text.slice(i, end + 1)) as string;
        } catch {
          id = undefined;
        }
        keyIsId = false;
      }
      i = end + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (depth === 1 && keyIsId) {
        id = undefined; // an object or array is not an id
        keyIsId = false;
      }
      depth++;
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      if (depth === 0) return id;
      i++;
    } else if (c === COMMA) {
      if (depth === 1) expectKey = true;
      i++;
    } else if (depth === 1 && keyIsId && (c === MINUS || isDigit(c))) {
      let end = i + 1;
      while (end < length && isNumberPart(text.charCodeAt(end))) end++;
      const token = text.slice(i, end);
      // A number cut off by the end of the text is not the id that was meant.
      if (end < length && JSON_NUMBER.test(token))
        id = String(Number(token)) === token ? Number(token) : new JsonNumberText(token);
      else id = undefined;
      keyIsId = false;
      i = end;
    } else if (depth === 1 && keyIsId && text.startsWith('null', i)) {
      id = null;
      keyIsId = false;
      i += 4;
    } else {
      if (depth === 1 && keyIsId && !isSpace(c) && c !== 0x3a) {
        id = undefined; // true, false or junk: not an id
        keyIsId = false;
      }
      i++;
    }
  }
  return id;
}
