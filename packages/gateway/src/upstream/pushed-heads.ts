import WebSocket from 'ws';
import { hexNumberOf } from '../rpc/hex-number.ts';
import { EVM_SUBSCRIBE, EVM_SUBSCRIPTION } from '../rpc/method-names.ts';

/** A new head as a node pushes it (the fields of a `newHeads` notification the gateway reads). */
export type PushedHead = { number: number; hash: string | null; parentHash: string | null };

export type PushedHeadsOptions = {
  /** The node's WebSocket address. */
  url: string;
  /** Called with each new head, in the order the node sends them. */
  onHead: (head: PushedHead) => void;
  /** Wait before a lost or refused connection is tried again; doubled after each failure in a row, up to 64 times. */
  retryMs: number;
  /** Time allowed for the connection and the eth_subscribe answer. */
  timeoutMs: number;
};

/**
 * One node's `newHeads` subscription, kept open: a head arrives when the node has it instead of
 * at the next poll. A connection that fails (a node without WebSocket, a node going down) is
 * tried again after `retryMs` (longer after each failure in a row); meanwhile the polls are all
 * there is.
 */
export class PushedHeads {
  private socket: WebSocket | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Connections in a row that ended without a head. */
  private failures = 0;
  /** The node accepted the subscription on the socket open now. */
  private subscribed = false;

  constructor(private readonly options: PushedHeadsOptions) {}

  start() {
    if (this.stopped || this.socket) return;
    const socket = new WebSocket(this.options.url, {
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
        // No newHeads there: polls only, asked again later.
        if (typeof message.result !== 'string') socket.terminate();
        else this.subscribed = true;
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
      if (this.socket === socket) {
        this.socket = undefined;
        this.subscribed = false;
      }
      if (this.stopped) return;
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
