import { GatewayError } from './errors.ts';
import { JsonLimitExceeded, JsonNumberText, parseRequestJson } from './exact-json.ts';
import type { JsonResult } from './json-result.ts';

/** A JSON number id whose text a double would change (`12345678901234567890`, `1.0`) is kept as its text. */
export type JsonRpcId = string | number | JsonNumberText | null;

export type JsonRpcRequest = {
  jsonrpc: '2.0';
  /** Absent for a notification. */
  id?: JsonRpcId;
  method: string;
  params: unknown[] | Record<string, unknown>;
};

export type JsonRpcError = { code: number; message: string; data?: unknown };

export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: JsonRpcError };

/** One item of a request body: a well-formed request, or the reason it is not one. */
export type ParsedItem =
  | { ok: true; request: JsonRpcRequest; isNotification: boolean }
  | { ok: false; id: JsonRpcId; error: GatewayError };

export type ParsedBody = { batch: false; items: [ParsedItem] } | { batch: true; items: ParsedItem[] };

export type BodyLimits = {
  /** Deepest nesting of arrays and objects in a body (a batch counts as one level). */
  maxJsonDepth: number;
  /** Most requests in one batch. */
  maxBatchSize: number;
};

/**
 * Parses a request body into items. Throws GatewayError: `parseError` for text that is not JSON,
 * `nestingTooDeep` / `batchTooLarge` beyond the limits (found before anything is parsed).
 */
export function parseBody(text: string, limits: BodyLimits): ParsedBody {
  let value: unknown;
  try {
    value = parseRequestJson(text, { maxDepth: limits.maxJsonDepth, maxItems: limits.maxBatchSize });
  } catch (error) {
    if (error instanceof JsonLimitExceeded) throw limitError(error, limits);
    throw new GatewayError('parseError', 'Parse error: the request body is not valid JSON');
  }
  if (Array.isArray(value)) {
    if (value.length === 0) {
      throw new GatewayError('invalidRequest', 'Invalid request: an empty batch is not a request');
    }
    return { batch: true, items: value.map(parseItem) };
  }
  return { batch: false, items: [parseItem(value)] };
}

function limitError(error: JsonLimitExceeded, limits: BodyLimits): GatewayError {
  if (error.limit === 'maxItems') {
    return new GatewayError(
      'batchTooLarge',
      `batch too large: more than ${limits.maxBatchSize} requests, at most ${limits.maxBatchSize} are allowed in one batch`,
    );
  }
  return new GatewayError(
    'nestingTooDeep',
    `Invalid request: the body nests arrays and objects deeper than ${limits.maxJsonDepth} levels (the gateway's maxJsonDepth)`,
  );
}

function isId(value: unknown): value is JsonRpcId {
  return (
    value === null ||
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    value instanceof JsonNumberText
  );
}

export function parseItem(value: unknown): ParsedItem {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(null, 'Invalid request: expected a JSON-RPC request object');
  }
  const item = value as Record<string, unknown>;
  const hasId = Object.hasOwn(item, 'id');
  if (hasId && !isId(item.id))
    return invalid(null, 'Invalid request: "id" must be a string, a number or null');
  const id = hasId ? (item.id as JsonRpcId) : null;
  if (item.jsonrpc !== '2.0') return invalid(id, 'Invalid request: "jsonrpc" must be exactly "2.0"');
  if (typeof item.method !== 'string' || item.method.length === 0) {
    return invalid(id, 'Invalid request: "method" must be a non-empty string');
  }
  const params = item.params ?? [];
  if (typeof params !== 'object' || params === null) {
    return invalid(id, 'Invalid request: "params" must be an array or an object');
  }
  const request: JsonRpcRequest = {
    jsonrpc: '2.0',
    method: item.method,
    params: params as JsonRpcRequest['params'],
  };
  if (hasId) request.id = id;
  return { ok: true, request, isNotification: !hasId };
}

function invalid(id: JsonRpcId, message: string): ParsedItem {
  return { ok: false, id, error: new GatewayError('invalidRequest', message) };
}

/** The result is written as its text (`stringifyJsonRpc`): a node's result as the node wrote it. */
export function resultResponse(id: JsonRpcId, result: JsonResult): JsonRpcResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: JsonRpcId, error: JsonRpcError): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error };
}
