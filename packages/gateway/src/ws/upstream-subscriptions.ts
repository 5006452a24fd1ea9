import { randomBytes } from 'node:crypto';
import type { Gauge } from 'prom-client';
import WebSocket from 'ws';
import type { ForwardResult } from '../pipeline/forward.ts';
import { GatewayError, invalidParams } from '../rpc/errors.ts';
import { JsonResult } from '../rpc/json-result.ts';
import type { JsonRpcError } from '../rpc/jsonrpc.ts';
import { EVM_SUBSCRIBE, EVM_SUBSCRIPTION, EVM_UNSUBSCRIBE } from '../rpc/method-names.ts';
import { isSubscriptionType, type SubscriptionType } from '../types.ts';
import { sanitiseUpstreamMessage, upstreamSecrets } from '../upstream/sanitise.ts';
import { DeliveredLogs, type KeptBytes, type Log } from './delivered-logs.ts';
import { headOf, missedSince } from './missed-notifications.ts';
import { LOGS_PER_BLOCK, positionOf } from './notification-position.ts';
import { takeBackReorged, UpstreamHeads } from './reorged-logs.ts';

type Pending = {
  method: string;
  /** For eth_subscribe: the type of the subscription being opened. */
  subscriptionType?: SubscriptionType;
  resolve: (reply: ForwardResult) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
};

type Notification = { params: { result: unknown } };

type Subscription = {
  type: SubscriptionType;
  params: unknown[];
  upstreamId: string;
  /**
   * Where the client is: newHeads, the number of the last head passed on; logs, the last log's
   * block and index (`positionOf`), or the head when it subscribed while no log has come; -1
   * while unknown.
   */
  last: number;
  /**
   * After a move: notifications at or before `last` are dropped until the new upstream has passed
   * it (nothing twice); while `queue` is set, the gap is being filled and notifications wait.
   */
  catchingUp: boolean;
  queue?: Notification[];
  /** A logs subscription's logs of its recent blocks, taken back when a reorg drops them. */
  delivered?: DeliveredLogs;
};

export type UpstreamSubscriptionsOptions = {
  /** Upstream WebSocket addresses in the order to try (called when a connection is needed). */
  urls: () => string[];
  timeoutMs: number;
  /** Receives each `eth_subscription` notification of this connection's subscriptions, in order. */
  notify: (message: unknown, subscription: { id: string; type: SubscriptionType }) => void;
  /** Called when the upstream connection is lost and no other upstream took the subscriptions. */
  lost: () => void;
  gauge?: Gauge.Internal<string>;
};

/**
 * One client connection's subscriptions, relayed over one upstream WebSocket opened on the first
 * eth_subscribe. Subscription ids are the first upstream's (the upstream connection is this
 * client's alone); upstream error text is cleaned of addresses and secrets like HTTP answers are.
 * When that upstream's connection is lost, every subscription is made again on the next upstream
 * under the same id, and gets what it missed from the new upstream (at most `MAX_GAP_BLOCKS`
 * blocks back): a newHeads subscription the heads by block number, a logs subscription the logs
 * after the last one it was sent (or after the head when it subscribed); nothing twice.
 * While it has logs subscriptions, the connection also follows the upstream's heads: a head that
 * does not extend the last ones (or a log at a height delivered with another block) is a reorg,
 * and the logs sent for the dropped blocks are sent again with `removed: true`, then the logs of
 * the new blocks (none twice). A move starts this afresh on the new upstream.
 */
export class UpstreamSubscriptions {
  private socket: WebSocket | undefined;
  private opening: Promise<WebSocket> | undefined;
  private readonly pending = new Map<number, Pending>();
  /** The client's subscriptions by the id the client knows (the first upstream's id). */
  private readonly active = new Map<string, Subscription>();
  /** The client's id of each subscription by its id on the current upstream. */
  private readonly byUpstreamId = new Map<string, string>();
  /** Notifications of subscriptions whose eth_subscribe answer is not delivered yet. */
  private readonly held = new Map<string, Notification[]>();
  private nextId = 1;
  private closed = false;
  private readonly requester = (method: string, params: unknown[]) => this.request(method, params);
  /** For reorgs: a newHeads subscription of the connection's own, and the logs kept (all subscriptions). */
  private readonly heads = new UpstreamHeads(this.requester);
  private readonly kept: KeptBytes = { used: 0 };
  /** Moves and reorg checks, one at a time. */
  private serial: Promise<void> = Promise.resolve();

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
    const reply = await this.request(EVM_SUBSCRIBE, params, type);
    const id = reply.ok ? reply.result.value : undefined;
    const subscription = typeof id === 'string' ? this.active.get(id) : undefined;
    if (subscription) {
      subscription.params = params;
      // Where a logs subscription starts, so that a move knows which logs the client has not had.
      if (type === 'logs') {
        subscription.delivered = new DeliveredLogs(this.kept);
        this.heads.watch();
        headOf(this.requester).then(
          (number) => {
            if (number !== undefined && subscription.last < 0)
              subscription.last = number * LOGS_PER_BLOCK + LOGS_PER_BLOCK - 1;
          },
          () => {},
        );
      }
    }
    if (typeof id === 'string') {
      // Notifications that came with the answer wait until the answer itself has been sent
      // (the answer goes out in the same turn of the event loop, after this returns).
      setImmediate(() => {
        const queued = this.held.get(id);
        const subscription = this.active.get(id);
        this.held.delete(id);
        if (subscription) for (const message of queued ?? []) this.pass(id, subscription, message);
      });
    }
    return reply;
  }

  async unsubscribe(params: unknown[]): Promise<ForwardResult> {
    const [id] = params;
    if (typeof id !== 'string' || params.length !== 1)
      throw invalidParams('eth_unsubscribe takes one parameter: the subscription id');
    const subscription = this.active.get(id);
    if (!subscription) return { ok: true, result: JsonResult.ofValue(false), cache: 'BYPASS' };
    this.forget(id);
    return this.request(EVM_UNSUBSCRIBE, [subscription.upstreamId]);
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
    const subscription = this.active.get(id);
    if (subscription) {
      this.active.delete(id);
      this.byUpstreamId.delete(subscription.upstreamId);
      subscription.delivered?.clear();
      this.options.gauge?.dec();
    }
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
    if (message.method === EVM_SUBSCRIPTION) {
      const upstreamId = message.params?.subscription;
      if (typeof upstreamId !== 'string') return;
      if (this.heads.owns(upstreamId)) {
        if (this.heads.see(message.params?.result)) this.reorged();
        return;
      }
      const id = this.byUpstreamId.get(upstreamId);
      const subscription = id === undefined ? undefined : this.active.get(id);
      if (id === undefined || !subscription) return;
      const notification = {
        jsonrpc: '2.0',
        method: EVM_SUBSCRIPTION,
        params: { subscription: id, result: message.params?.result },
      };
      const queued = this.held.get(id);
      if (queued) queued.push(notification);
      else this.pass(id, subscription, notification);
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
    let result = message.result ?? null;
    if (pending.subscriptionType && typeof message.result === 'string') {
      // The client knows a subscription by the id of its first upstream; one that a moved
      // subscription already holds (a node counting ids from 1) gets an id of the gateway's.
      const id = this.active.has(message.result) ? `0x${randomBytes(16).toString('hex')}` : message.result;
      // Registered here, synchronously, so notifications in the same read are not lost.
      this.active.set(id, {
        type: pending.subscriptionType,
        params: [pending.subscriptionType],
        upstreamId: message.result,
        last: -1,
        catchingUp: false,
      });
      this.byUpstreamId.set(message.result, id);
      this.held.set(id, []);
      this.options.gauge?.inc();
      result = id;
    }
    pending.resolve({ ok: true, result: JsonResult.ofValue(result), cache: 'BYPASS' });
  }

  /** Passes a notification on, in chain order across a move or a reorg, without repeats. */
  private pass(id: string, subscription: Subscription, notification: Notification) {
    const { result } = notification.params;
    if (!subscription.queue && subscription.delivered?.conflicts(result as Log)) this.reorged();
    const position = positionOf(subscription.type, result);
    if (position !== undefined) {
      if (subscription.queue) {
        subscription.queue.push(notification);
        return;
      }
      if (subscription.catchingUp) {
        if (position <= subscription.last) return;
        subscription.catchingUp = false;
      }
    }
    this.emit(id, subscription, result);
  }

  /** Sends a result to the client (a log only once) and moves where the subscription is. */
  private emit(id: string, subscription: Subscription, result: unknown) {
    if (subscription.delivered && !subscription.delivered.admit(result as Log)) return;
    const position = positionOf(subscription.type, result);
    if (position !== undefined) subscription.last = position;
    this.options.notify(
      { jsonrpc: '2.0', method: EVM_SUBSCRIPTION, params: { subscription: id, result } },
      { id, type: subscription.type },
    );
  }

  /** Passes on what waited while a gap was filled or a reorg was checked. */
  private release(id: string, subscription: Subscription) {
    const queued = subscription.queue ?? [];
    subscription.queue = undefined;
    for (const message of queued) this.pass(id, subscription, message);
  }

  private lostUpstream(socket: WebSocket) {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.heads.reset();
    this.failPending(new GatewayError('upstreamUnavailable', 'Upstream node unavailable'));
    if (this.active.size > 0 && !this.closed) {
      for (const subscription of this.active.values()) {
        this.byUpstreamId.delete(subscription.upstreamId);
        // Blocks of the old upstream are not compared with the new one's (two dev chains differ).
        subscription.delivered?.clear();
      }
      const move = this.serial.then(() => this.moveSubscriptions());
      this.serial = move.catch(() => {
        if (this.closed) return;
        for (const id of [...this.active.keys()]) this.forget(id);
        this.options.lost();
      });
    }
  }

  /**
   * Makes every subscription again on the next upstream that takes a connection, under the ids
   * the client knows; then each gets what it missed. Throws when no upstream takes them.
   */
  private async moveSubscriptions() {
    for (const subscription of this.active.values()) subscription.queue ??= [];
    for (const [id, subscription] of this.active) {
      const reply = await this.request(EVM_SUBSCRIBE, subscription.params);
      const upstreamId = reply.ok ? reply.result.value : undefined;
      if (typeof upstreamId !== 'string') throw new Error('the next upstream refused the subscription');
      subscription.upstreamId = upstreamId;
      this.byUpstreamId.set(upstreamId, id);
    }
    if ([...this.active.values()].some((s) => s.delivered)) this.heads.watch();
    for (const [id, subscription] of this.active) await this.fillGap(id, subscription);
  }

  /** What a subscription missed while it moved, then what came meanwhile. */
  private async fillGap(id: string, subscription: Subscription) {
    try {
      const head = subscription.last >= 0 ? await headOf(this.requester) : undefined;
      if (head !== undefined) {
        const wanted = () => this.active.has(id);
        for (const { result } of await missedSince(this.requester, subscription, head, wanted))
          if (wanted()) this.emit(id, subscription, result);
      }
    } finally {
      subscription.catchingUp = subscription.last >= 0;
      this.release(id, subscription);
    }
  }

  /** A reorg may have dropped delivered logs: their subscriptions wait until it is checked. */
  private reorged() {
    for (const subscription of this.active.values())
      if (subscription.delivered?.heights().length) subscription.queue ??= [];
    const emit = (id: string, subscription: Subscription, log: unknown) => this.emit(id, subscription, log);
    const release = (id: string, subscription: Subscription) => this.release(id, subscription);
    this.serial = this.serial
      .then(() => takeBackReorged(this.requester, this.active, emit, release))
      .catch(() => {});
  }

  private failPending(error: GatewayError) {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      this.pending.delete(id);
      pending.reject(error);
    }
  }
}
