import { type Dispatcher, Pool } from 'undici';
import { GatewayError } from '../rpc/errors.ts';
import { parseJsonExact, stringifyJsonExact } from '../rpc/exact-json.ts';
import { JsonResult, resultTextOf } from '../rpc/json-result.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import { sanitiseUpstreamMessage, upstreamSecrets } from './sanitise.ts';

/** A node's answer: its result (as the node wrote it, read on demand) or its error. */
export type UpstreamReply = { ok: true; result: JsonResult } | { ok: false; error: JsonRpcError };

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
  private readonly read: (text: string) => unknown;
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
    this.read = options.exactIntegers ? parseJsonExact : JSON.parse;
    this.maxResponseBytes = options.maxResponseBytes ?? 16 * 1024 * 1024;
  }

  /**
   * Calls one method. Throws GatewayError when the upstream cannot be reached or answers garbage;
   * `signal` abandons the call (a hedged request another upstream answered first, a poll too slow).
   */
  call(method: string, params: unknown, signal?: AbortSignal): Promise<UpstreamReply> {
    const id = this.nextId++;
    const body = `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${stringifyJsonExact(params)}}`;
    return new Promise<UpstreamReply>((resolve, reject) => {
      this.pool.dispatch(
        {
          path: this.path,
          method: 'POST',
          headers: this.headers,
          body,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        },
        new AnswerReader(
          this.maxResponseBytes,
          signal,
          (status, text) => {
            try {
              resolve(this.reply(status, text, id));
            } catch (error) {
              reject(error);
            }
          },
          reject,
        ),
      );
    });
  }

  /**
   * The node's answer: the usual shape is spliced, not parsed; anything else is read in full.
   * Throws GatewayError for an answer that is not JSON-RPC.
   */
  private reply(status: number, text: string, id: number): UpstreamReply {
    const resultText = resultTextOf(text, id);
    if (resultText !== undefined) return { ok: true, result: JsonResult.ofText(resultText, this.read) };
    let answer: { result?: unknown; error?: JsonRpcError };
    try {
      answer = this.read(text) as { result?: unknown; error?: JsonRpcError };
    } catch {
      throw new GatewayError('upstreamUnavailable', `Upstream node answered HTTP ${status} without JSON-RPC`);
    }
    if (answer && typeof answer === 'object' && answer.error && typeof answer.error === 'object') {
      const error: JsonRpcError = {
        code: typeof answer.error.code === 'number' ? answer.error.code : -32603,
        message: sanitiseUpstreamMessage(String(answer.error.message ?? 'upstream error'), this.secrets),
      };
      if (answer.error.data !== undefined) error.data = answer.error.data;
      return { ok: false, error };
    }
    if (!answer || typeof answer !== 'object' || !('result' in answer)) {
      throw new GatewayError('upstreamUnavailable', `Upstream node answered HTTP ${status} without a result`);
    }
    return { ok: true, result: JsonResult.ofValue(answer.result) };
  }

  async close() {
    await this.pool.close();
  }

  /** Closes at once, failing calls still running (for a shutdown past its deadline). */
  async destroy() {
    await this.pool.destroy();
  }
}

/**
 * Collects one answer body as UTF-8 through undici's dispatch handler (no stream, no iterator
 * per call), refusing more than `limit` bytes, and settles with the status and text or with the
 * GatewayError a client is told.
 */
class AnswerReader implements Dispatcher.DispatchHandler {
  private chunks: Buffer[] = [];
  private size = 0;
  private status = 0;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly limit: number,
    private readonly signal: AbortSignal | undefined,
    private readonly resolve: (status: number, text: string) => void,
    private readonly reject: (error: GatewayError) => void,
  ) {
    if (signal) {
      this.onAbort = () => this.controller?.abort(signal.reason);
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController) {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(this.signal.reason);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number) {
    this.status = statusCode;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer) {
    this.size += chunk.length;
    if (this.size > this.limit) {
      controller.abort(
        new GatewayError(
          'upstreamUnavailable',
          `Upstream answer too large: more than ${this.limit} bytes (the network's maxResponseBytes); narrow the request`,
        ),
      );
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd() {
    this.done();
    const { chunks } = this;
    const text = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
    this.resolve(this.status, text);
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error) {
    this.done();
    if (error instanceof GatewayError) return this.reject(error);
    const code = (error as { code?: string }).code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return this.reject(new GatewayError('upstreamTimeout', 'Upstream node timed out'));
    }
    this.reject(new GatewayError('upstreamUnavailable', 'Upstream node unavailable'));
  }

  private done() {
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
  }
}
