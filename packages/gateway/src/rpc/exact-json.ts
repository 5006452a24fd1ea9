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

const NONCE = randomBytes(6).toString('hex');
/** Marks an integer read as bigint. */
const INTEGER_MARK = `\u0000int:${NONCE}:`;
/** Marks a number kept as its text (request ids). */
const NUMBER_MARK = `\u0000num:${NONCE}:`;
/** The marks as they are written inside a JSON string. */
const INTEGER_MARK_JSON = JSON.stringify(INTEGER_MARK).slice(1, -1);
const NUMBER_MARK_JSON = JSON.stringify(NUMBER_MARK).slice(1, -1);
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
export class JsonLimitExceeded extends Error {
  constructor(
    readonly limit: keyof JsonLimits,
    readonly value: number,
  ) {
    super(`JSON beyond ${limit} ${value}`);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const MINUS = 0x2d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** Characters a JSON number token may contain after its first. */
const isNumberPart = (c: number) =>
  isDigit(c) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Index of the quote closing the string that opens at `start`, or -1 when it is not closed. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let backslash = quote - 1;
    while (backslash > start && text.charCodeAt(backslash) === BACKSLASH) backslash--;
    if ((quote - 1 - backslash) % 2 === 0) return quote;
    from = quote + 1;
  }
}

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
      while (end < length && isNumberPart(text.charCodeAt(end))) end++;
      let mark: string | undefined;
      if (inRequest && keyIsId && depth === requestDepth) {
        const token = text.slice(i, end);
        if (JSON_NUMBER.test(token) && String(Number(token)) !== token) mark = NUMBER_MARK_JSON;
        numberTexts ||= mark !== undefined;
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
  typeof value === 'string' && value.startsWith(INTEGER_MARK)
    ? BigInt(value.slice(INTEGER_MARK.length))
    : value;

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
 * text a double would change is a JsonNumberText.
 */
export function parseRequestJson(text: string, limits: JsonLimits): unknown {
  const scanned = scan(text, limits, true);
  const value = parseScanned(scanned);
  if (scanned.numberTexts) {
    for (const item of Array.isArray(value) ? value : [value]) restoreNumberTextId(item);
  }
  return value;
}

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
 * A value read from an upstream's answer together with the text it was read from: written back
 * as that text (`stringifyJsonRpc`), so an answer reaches the client as the node wrote it without
 * being serialised again. Anywhere else (`JSON.stringify`) it is written as its value.
 */
export class RawJson {
  constructor(
    readonly text: string,
    readonly value: unknown,
  ) {}

  toJSON() {
    return this.value;
  }
}

/** Index just past the JSON value that starts at `start` of text already known to be valid JSON. */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return stringEnd(text, start) + 1;
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let i = start + 1;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || isSpace(c)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i) + 1;
      if (i === 0) return -1;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) return i + 1;
    i++;
  }
  return -1;
}

/**
 * The text of the result in a JSON-RPC answer of the usual shape, `{"jsonrpc":"2.0","id":<id>,
 * "result":<value>}` (compact, those members in that order, optional whitespace at the end), or
 * undefined for any other shape. `text` must already have parsed as JSON.
 */
export function resultTextOf(text: string, id: number): string | undefined {
  const prefix = `{"jsonrpc":"2.0","id":${id},"result":`;
  if (!text.startsWith(prefix)) return undefined;
  const end = valueEnd(text, prefix.length);
  if (end < 0) return undefined;
  let i = end;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== CLOSE_OBJECT) return undefined;
  i++;
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i === text.length ? text.slice(prefix.length, end) : undefined;
}

/**
 * A JSON-RPC response or batch of them as `stringifyJsonExact` writes it, except that a result
 * held as RawJson is written as its text (spliced in, not serialised again).
 */
export function stringifyJsonRpc(body: unknown): string {
  if (Array.isArray(body)) {
    if (!body.some(hasRawResult)) return stringifyJsonExact(body);
    return `[${body.map(stringifyJsonRpc).join(',')}]`;
  }
  if (!hasRawResult(body)) return stringifyJsonExact(body);
  const { id, result } = body as { id: unknown; result: RawJson };
  const idText =
    typeof id === 'number' || typeof id === 'string' || id === null
      ? JSON.stringify(id)
      : stringifyJsonExact(id);
  return `{"jsonrpc":"2.0","id":${idText},"result":${result.text}}`;
}

function hasRawResult(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { result?: unknown }).result instanceof RawJson &&
    (body as { jsonrpc?: unknown }).jsonrpc === '2.0' &&
    Object.keys(body).length === 3
  );
}
