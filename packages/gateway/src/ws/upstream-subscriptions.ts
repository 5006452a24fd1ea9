import type { Gauge } from 'prom-client';
import WebSocket from 'ws';
import type { ForwardResult } from '../pipeline/forward.ts';
import { describeValue } from '../rpc/describe-value.ts';
import { GatewayError, invalidParams } from '../rpc/errors.ts';
import { JsonResult } from '../rpc/json-result.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import { isSubscriptionType, SUBSCRIPTION_TYPES, type SubscriptionType } from '../types.ts';
import { sanitiseUpstreamMessage, upstreamSecrets } from '../upstream/sanitise.ts';

export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

/** ws:// or wss:// address of an upstream's WebSocket endpoint, derived from its http(s) URL. */
export function wsUrlOf(httpUrl: string): string {
  const url = new URL(httpUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** Checks eth_subscribe parameters before anything is charged (a refusal is -32602). */
export function checkSubscribe(params: unknown[], active: number) {
  const [type, filter] = params;
  if (!isSubscriptionType(type)) {
    throw invalidParams(
      `eth_subscribe: params[0] must be one of ${SUBSCRIPTION_TYPES.join(', ')}, got ${describeValue(type)}`,
    );
  }
  if (type === 'newHeads' && params.length > 1)
    throw invalidParams('eth_subscribe: newHeads takes no filter');
  if (
    type === 'logs' &&
    params.length > 1 &&
    (typeof filter !== 'object' || filter === null || Array.isArray(filter))
  )
    throw invalidParams(
      'eth_subscribe: the logs filter (params[1]) must be an object with address and/or topics',
    );
  if (params.length > 2) throw invalidParams('eth_subscribe takes at most two parameters');
  if (active >= MAX_SUBSCRIPTIONS_PER_CONNECTION)
    throw invalidParams(
      `eth_subscribe: at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection; eth_unsubscribe some first`,
    );
}

type Pending = {
  method: string;
  /** For eth_subscribe: the type of the subscription being opened. */
  subscriptionType?: SubscriptionType;
  resolve: (reply: ForwardResult) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
};

export type UpstreamSubscriptionsOptions = {
  /** Upstream WebSocket addresses in the order to try (called when a connection is needed). */
  urls: () => string[];
  timeoutMs: number;
  /** Receives each `eth_subscription` notification of this connection's subscriptions, in order. */
  notify: (message: unknown, subscription: { id: string; type: SubscriptionType }) => void;
  /** Called when the upstream connection is lost while subscriptions were active. */
  lost: () => void;
  gauge?: Gauge.Internal<string>;
};

/**
 * One client connection's subscriptions, relayed over one upstream WebSocket opened on the first
 * eth_subscribe. Subscription ids are the upstream's (the upstream connection is this client's
 * alone); upstream error text is cleaned of addresses and secrets like HTTP answers are.
 */
export class UpstreamSubscriptions {
  private socket: WebSocket | undefined;
  private opening: Promise<WebSocket> | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly active = new Map<string, SubscriptionType>();
  /** Notifications of subscriptions whose eth_subscribe answer is not delivered yet. */
  private readonly held = new Map<string, unknown[]>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: UpstreamSubscriptionsOptions) {}

  get size() {
    return this.active.size;
  }

  /** Whether a subscription id is still active on this connection. */
  has(id: string) {
    return this.active.has(id);
  }

  async subscribe(params: unknown[]): Promise<ForwardResult> {
    const [type] = params;
    if (!isSubscriptionType(type)) throw invalidParams('eth_subscribe: unknown subscription type');
    const reply = await this.request('eth_subscribe', params, type);
    const id = reply.ok ? reply.result.value : undefined;
    if (typeof id === 'string') {
      // Notifications that came with the answer wait until the answer itself has been sent
      // (the answer goes out in the same turn of the event loop, after this returns).
      setImmediate(() => {
        const queued = this.held.get(id);
        this.held.delete(id);
        const type = this.active.get(id);
        if (queued && type) for (const message of queued) this.options.notify(message, { id, type });
      });
    }
    return reply;
  }

  async unsubscribe(params: unknown[]): Promise<ForwardResult> {
    const [id] = params;
    if (typeof id !== 'string' || params.length !== 1)
      throw invalidParams('eth_unsubscribe takes one parameter: the subscription id');
    if (!this.active.has(id)) return { ok: true, result: JsonResult.ofValue(false), cache: 'BYPASS' };
    this.forget(id);
    return this.request('eth_unsubscribe', [id]);
  }

  /** Drops every subscription and the upstream connection. */
  close() {
    this.closed = true;
    for (const id of [...this.active.keys()]) this.forget(id);
    this.failPending(new GatewayError('upstreamUnavailable', 'The connection was closed'));
    this.socket?.terminate();
    this.socket = undefined;
  }

  private forget(id: string) {
    if (this.active.delete(id)) this.options.gauge?.dec();
    this.held.delete(id);
  }

  private async request(
    method: string,
    params: unknown[],
    subscriptionType?: SubscriptionType,
  ): Promise<ForwardResult> {
    const socket = await this.connect();
    const id = this.nextId++;
    return new Promise<ForwardResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new GatewayError('upstreamTimeout', 'Upstream node timed out'));
      }, this.options.timeoutMs);
      this.pending.set(id, { method, subscriptionType, resolve, reject, timer });
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  private connect(): Promise<WebSocket> {
    if (this.closed)
      return Promise.reject(new GatewayError('upstreamUnavailable', 'The connection was closed'));
    if (this.socket?.readyState === WebSocket.OPEN) return Promise.resolve(this.socket);
    this.opening ??= this.openFirst().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private async openFirst(): Promise<WebSocket> {
    for (const url of this.options.urls()) {
      try {
        const socket = await this.open(url);
        if (this.closed) {
          socket.terminate();
          break;
        }
        this.socket = socket;
        return socket;
      } catch {
        // next upstream
      }
    }
    throw new GatewayError('upstreamUnavailable', 'No upstream node is available for subscriptions');
  }

  private open(url: string): Promise<WebSocket> {
    const secrets = upstreamSecrets(url.replace(/^ws/, 'http'));
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, {
        handshakeTimeout: this.options.timeoutMs,
        maxPayload: 64 * 1024 * 1024,
      });
      socket.once('open', () => {
        socket.off('error', reject);
        socket.on('error', () => socket.terminate());
        socket.on('message', (data) => this.receive(String(data), secrets));
        socket.on('close', () => this.lostUpstream(socket));
        resolve(socket);
      });
      socket.once('error', reject);
    });
  }

  private receive(text: string, secrets: string[]) {
    let message: {
      id?: unknown;
      method?: unknown;
      result?: unknown;
      error?: JsonRpcError;
      params?: { subscription?: unknown; result?: unknown };
    };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.method === 'eth_subscription') {
      const subscription = message.params?.subscription;
      if (typeof subscription !== 'string') return;
      const type = this.active.get(subscription);
      if (!type) return;
      const notification = {
        jsonrpc: '2.0',
        method: 'eth_subscription',
        params: { subscription, result: message.params?.result },
      };
      const queued = this.held.get(subscription);
      if (queued) queued.push(notification);
      else this.options.notify(notification, { id: subscription, type });
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    clearTimeout(pending.timer);
    if (message.error && typeof message.error === 'object') {
      const error: JsonRpcError = {
        code: typeof message.error.code === 'number' ? message.error.code : -32603,
        message: sanitiseUpstreamMessage(String(message.error.message ?? 'upstream error'), secrets),
      };
      pending.resolve({ ok: false, error, cache: 'BYPASS' });
      return;
    }
    if (pending.subscriptionType && typeof message.result === 'string') {
      // Registered here, synchronously, so notifications in the same read are not lost.
      this.active.set(message.result, pending.subscriptionType);
      this.held.set(message.result, []);
      this.options.gauge?.inc();
    }
    pending.resolve({ ok: true, result: JsonResult.ofValue(message.result ?? null), cache: 'BYPASS' });
  }

  private lostUpstream(socket: WebSocket) {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.failPending(new GatewayError('upstreamUnavailable', 'Upstream node unavailable'));
    if (this.active.size > 0 && !this.closed) {
      for (const id of [...this.active.keys()]) this.forget(id);
      this.options.lost();
    }
  }

  private failPending(error: GatewayError) {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(error);
    }
  }
}
