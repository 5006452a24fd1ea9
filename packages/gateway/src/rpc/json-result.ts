import { GatewayError } from './errors.ts';
import { stringifyJsonExact } from './exact-json.ts';
import { CLOSE_OBJECT, isSpace, valueEnd } from './json-scan.ts';

/**
 * A JSON-RPC result held as the text a node wrote, as its value, or both; the other side is made
 * only when something asks for it. A node's answer reaches the client as its text, spliced in
 * unchanged, and is read into a value only where a rule must look inside (pending blocks, what
 * to cache, the block it belongs to). `JSON.stringify` writes it as its value.
 */
export class JsonResult {
  #text: string | undefined;
  #value: unknown;
  #read: ((text: string) => unknown) | undefined;
  #items: readonly string[] | undefined;

  private constructor(
    text: string | undefined,
    value: unknown,
    read: ((text: string) => unknown) | undefined,
  ) {
    this.#text = text;
    this.#value = value;
    this.#read = read;
  }

  /** A result known by its text; `read` makes the value when it is asked for (default JSON.parse). */
  static ofText(text: string, read: (text: string) => unknown = JSON.parse): JsonResult {
    return new JsonResult(text, undefined, read);
  }

  static ofValue(value: unknown): JsonResult {
    return new JsonResult(undefined, value, undefined);
  }

  /**
   * A JSON list put together from the texts of its items (each one or more items as a node wrote
   * them, without the brackets), held as those texts: an HTTP answer writes them one after the
   * other (`items`) instead of making one string of the whole list, which for an eth_getLogs in
   * parts is up to `maxResponseBytes` (`text` joins them when something asks for it).
   */
  static ofItems(items: readonly string[], read: (text: string) => unknown = JSON.parse): JsonResult {
    const result = new JsonResult(undefined, undefined, read);
    result.#items = items;
    return result;
  }

  get text(): string {
    if (this.#text === undefined) {
      this.#text = this.#items === undefined ? stringifyJsonExact(this.#value) : `[${this.#items.join(',')}]`;
      this.#items = undefined;
    }
    return this.#text;
  }

  /** The texts of a list made by `ofItems`, while nothing has joined them; else undefined. */
  get items(): readonly string[] | undefined {
    return this.#items;
  }

  /** Throws GatewayError (upstreamUnavailable) when the node's text does not read as JSON. */
  get value(): unknown {
    const read = this.#read;
    if (read !== undefined) {
      try {
        this.#value = read(this.text);
      } catch {
        throw new GatewayError(
          'upstreamUnavailable',
          'Upstream node answered a result that is not valid JSON',
        );
      }
      this.#read = undefined;
    }
    return this.#value;
  }

  /** Whether the result is JSON null (the node has no such object), without reading it. */
  get isNull(): boolean {
    return this.#read === undefined ? this.#value === null : this.#text === 'null';
  }

  toJSON() {
    return this.value;
  }
}

/**
 * The text of the result in a JSON-RPC answer of the usual shape, `{"jsonrpc":"2.0","id":<id>,
 * "result":<value>}` (compact, those members in that order, optional whitespace at the end), or
 * undefined for any other shape. The result's structure is checked (it cannot reach into the rest
 * of the answer), its content is not parsed.
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
 * held as a JsonResult is written as its text (spliced in, not serialised again).
 */
export function stringifyJsonRpc(body: unknown): string {
  if (Array.isArray(body)) {
    if (!body.some(hasJsonResult)) return stringifyJsonExact(body);
    return `[${body.map(stringifyJsonRpc).join(',')}]`;
  }
  if (!hasJsonResult(body)) return stringifyJsonExact(body);
  const { id, result } = body as { id: unknown; result: JsonResult };
  return `{"jsonrpc":"2.0","id":${idText(id)},"result":${result.text}}`;
}

/**
 * A JSON-RPC response whose result is a list held as its items (`JsonResult.ofItems`) as the texts
 * to write one after the other: the same bytes as `stringifyJsonRpc`, without one string of them
 * all. Undefined for any other body (a batch, an error, a result held as one text or a value).
 */
export function jsonRpcChunks(body: unknown): string[] | undefined {
  if (!hasJsonResult(body)) return undefined;
  const { id, result } = body as { id: unknown; result: JsonResult };
  const { items } = result;
  if (items === undefined) return undefined;
  const chunks = [`{"jsonrpc":"2.0","id":${idText(id)},"result":[`];
  // The comma apart: `,${item}` would be a new string of the item's size once written.
  items.forEach((item, i) => {
    if (i > 0) chunks.push(',');
    chunks.push(item);
  });
  chunks.push(']}');
  return chunks;
}

/** A response id as JSON (a JsonNumberText id is written as its own digits). */
function idText(id: unknown): string {
  return typeof id === 'number' || typeof id === 'string' || id === null
    ? JSON.stringify(id)
    : stringifyJsonExact(id);
}

/** A response as `resultResponse` builds it: jsonrpc, id and a JsonResult, nothing else. */
function hasJsonResult(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { result?: unknown }).result instanceof JsonResult &&
    (body as { jsonrpc?: unknown }).jsonrpc === '2.0'
  );
}
