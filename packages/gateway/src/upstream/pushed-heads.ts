import WebSocket from 'ws';
import { hexNumberOf } from '../rpc/hex-number.ts';
import { EVM_SUBSCRIBE, EVM_SUBSCRIPTION } from '../rpc/method-names.ts';

/** A new head as a node pushes it (the fields of a `newHeads` notification the gateway reads). */
export type PushedHead = { number: number; hash: string | null; parentHash: string | null };

export type PushedHeadsOptions = {
  /** Where the node's WebSocket may be, most likely first (`wsAddressesOf`). */
  urls: readonly string[];
  /** Called with each new head, in the order the node sends them. */
  onHead: (head: PushedHead) => void;
  /** Wait before a lost or refused connection is tried again; doubled after each failure in a row, up to 64 times. */
  retryMs: number;
  /** Time allowed for the connection and the eth_subscribe answer. */
  timeoutMs: number;
};

/**
 * One node's `newHeads` subscription, kept open: a head arrives when the node has it instead of
 * at the next poll. The addresses are tried in turn until one takes the subscription, and that
 * one is tried first from then on. When none does (a node without WebSocket) or the node goes
 * down, they are tried again after `retryMs` (longer after each failure in a row); meanwhile the
 * polls are all there is.
 */
export class PushedHeads {
  private socket: WebSocket | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Connections in a row that ended without a head. */
  private failures = 0;
  /** The node accepted the subscription on the socket open now. */
  private subscribed = false;
  /** The address tried now, and the one that last took the subscription (indexes of `urls`). */
  private at = 0;
  private preferred = 0;
  /** Addresses tried in this turn without a subscription. */
  private tried = 0;

  constructor(private readonly options: PushedHeadsOptions) {}

  start() {
    if (this.stopped || this.socket) return;
    const socket = new WebSocket(this.options.urls[this.at], {
      handshakeTimeout: this.options.timeoutMs,
      maxPayload: 1024 * 1024,
    });
    this.socket = socket;
    const answerTimer = setTimeout(() => socket.terminate(), this.options.timeoutMs);
    answerTimer.unref();
    socket.on('open', () => {
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: EVM_SUBSCRIBE, params: ['newHeads'] }));
    });
    socket.on('message', (data) => {
      const message = readMessage(String(data));
      if (!message) return;
      if (message.id === 1) {
        clearTimeout(answerTimer);
        // No newHeads there: the next address, or all of them again later.
        if (typeof message.result !== 'string') socket.terminate();
        else {
          this.subscribed = true;
          this.preferred = this.at;
          this.tried = 0;
        }
        return;
      }
      const head = headOf(message);
      if (head) {
        this.failures = 0;
        this.options.onHead(head);
      }
    });
    socket.on('error', () => socket.terminate());
    socket.on('close', () => {
      clearTimeout(answerTimer);
      // One socket at a time: until stop(), the one closing is this.socket.
      if (this.stopped) return;
      const tookIt = this.subscribed;
      this.socket = undefined;
      this.subscribed = false;
      const count = this.options.urls.length;
      if (!tookIt && this.tried + 1 < count) {
        this.tried += 1;
        this.at = (this.at + 1) % count;
        this.start();
        return;
      }
      this.tried = 0;
      this.at = this.preferred;
      const wait = this.options.retryMs * 2 ** Math.min(this.failures, 6);
      this.failures += 1;
      this.retry = setTimeout(() => this.start(), wait);
      this.retry.unref();
    });
  }

  /** Whether heads arrive as the node has them: the socket is open and the node took the subscription. */
  get live(): boolean {
    return this.subscribed && this.socket?.readyState === WebSocket.OPEN;
  }

  stop() {
    this.stopped = true;
    this.subscribed = false;
    clearTimeout(this.retry);
    this.socket?.terminate();
    this.socket = undefined;
  }
}

type Message = { id?: unknown; result?: unknown; method?: unknown; params?: { result?: unknown } };

function readMessage(text: string): Message | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Message) : undefined;
  } catch {
    return undefined;
  }
}

function headOf(message: Message): PushedHead | undefined {
  if (message.method !== EVM_SUBSCRIPTION) return undefined;
  const block = message.params?.result as
    | { number?: unknown; hash?: unknown; parentHash?: unknown }
    | undefined;
  const number = hexNumberOf(block?.number);
  if (!block || number === undefined) return undefined;
  return {
    number,
    hash: typeof block.hash === 'string' ? block.hash : null,
    parentHash: typeof block.parentHash === 'string' ? block.parentHash : null,
  };
}
