import { Pool } from 'undici';
import { GatewayError } from '../rpc/errors.ts';
import { parseJsonExact, resultTextOf, stringifyJsonExact } from '../rpc/exact-json.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import { sanitiseUpstreamMessage, upstreamSecrets } from './sanitise.ts';

/**
 * A node's answer. `text` is the result as the node wrote it, when its answer had the usual shape:
 * the client's answer splices it in rather than serialising `result` again.
 */
export type UpstreamReply = { ok: true; result: unknown; text?: string } | { ok: false; error: JsonRpcError };

export type HttpUpstreamOptions = {
  /** Time allowed for one upstream call. Default 30 s. */
  timeoutMs?: number;
  /** Keep-alive connections kept open to the upstream. Default 64. */
  connections?: number;
  /** Largest answer accepted, in bytes; a larger one is cut off and answered -32603. Default 16 MiB. */
  maxResponseBytes?: number;
  /** Read integers beyond 2^53 exactly (Solana u64 values); EVM answers are hex strings and skip the cost. */

  exactIntegers?: boolean;
};

/** A JSON-RPC node reached over HTTP with a keep-alive connection pool. */
export class HttpUpstream {
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly secrets: string[];
  private readonly timeoutMs: number;
  private readonly parse: (text: string) => unknown;
  private readonly maxResponseBytes: number;
  private nextId = 1;
  /** host:port of the upstream, safe for logs and metrics (no path, query or credentials). */
  readonly host: string;

  constructor(
    readonly url: string,
    options: HttpUpstreamOptions = {},
  ) {
    const parsed = new URL(url);
    this.host = parsed.host;
    this.pool = new Pool(parsed.origin, { connections: options.connections ?? 64, pipelining: 1 });
    this.path = `${parsed.pathname}${parsed.search}`;
    this.headers = { 'content-type': 'application/json' };
    if (parsed.username || parsed.password) {
      const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
      this.headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    this.secrets = upstreamSecrets(url);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.parse = options.exactIntegers ? parseJsonExact : JSON.parse;
    this.maxResponseBytes = options.maxResponseBytes ?? 16 * 1024 * 1024;
  }

  /**
   * Calls one method. Throws GatewayError when the upstream cannot be reached or answers garbage;
   * `signal` abandons the call (a hedged request another upstream answered first, a poll too slow).
   */
  async call(method: string, params: unknown, signal?: AbortSignal): Promise<UpstreamReply> {
    const id = this.nextId++;
    const body = stringifyJsonExact({ jsonrpc: '2.0', id, method, params });
    let text: string;
    let status: number;
    try {
      const response = await this.pool.request({
        path: this.path,
        method: 'POST',
        headers: this.headers,
        body,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        signal,
      });
      status = response.statusCode;
      text = await readLimited(response.body, this.maxResponseBytes);
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      const code = (error as { code?: string }).code;
      if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
        throw new GatewayError('upstreamTimeout', 'Upstream node timed out');
      }
      throw new GatewayError('upstreamUnavailable', 'Upstream node unavailable');
    }
    let reply: { result?: unknown; error?: JsonRpcError };
    try {
      reply = this.parse(text) as { result?: unknown; error?: JsonRpcError };
    } catch {
      throw new GatewayError('upstreamUnavailable', `Upstream node answered HTTP ${status} without JSON-RPC`);
    }
    if (reply && typeof reply === 'object' && reply.error && typeof reply.error === 'object') {
      const error: JsonRpcError = {
        code: typeof reply.error.code === 'number' ? reply.error.code : -32603,
        message: sanitiseUpstreamMessage(String(reply.error.message ?? 'upstream error'), this.secrets),
      };
      if (reply.error.data !== undefined) error.data = reply.error.data;
      return { ok: false, error };
    }
    if (!reply || typeof reply !== 'object' || !('result' in reply)) {
      throw new GatewayError('upstreamUnavailable', `Upstream node answered HTTP ${status} without a result`);
    }
    const resultText = resultTextOf(text, id);
    return resultText === undefined
      ? { ok: true, result: reply.result }
      : { ok: true, result: reply.result, text: resultText };
  }

  async close() {
    await this.pool.close();
  }

  /** Closes at once, failing calls still running (for a shutdown past its deadline). */
  async destroy() {
    await this.pool.destroy();
  }
}

/** Reads an answer body as UTF-8, refusing (and discarding) more than `limit` bytes. */
async function readLimited(
  body: AsyncIterable<Buffer> & { destroy(): void },
  limit: number,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new GatewayError(
        'upstreamUnavailable',
        `Upstream answer too large: more than ${limit} bytes (the network's maxResponseBytes); narrow the request`,
      );
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
}
