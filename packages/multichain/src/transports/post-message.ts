import type { EngineConnection, MultichainEngine } from '../engine/engine.ts';
import { createListeners, type MultichainTransport } from './types.ts';

/** The envelope on window.postMessage, so Portico's messages are told apart from anything else. */
export const POST_MESSAGE_CHANNEL = 'portico-multichain';

type Envelope = { channel: typeof POST_MESSAGE_CHANNEL; to: 'wallet' | 'dapp'; data: unknown };

/** The part of a `Window` used for messaging (a real window, an iframe's contentWindow, a test fake). */
export type PostMessageTarget = {
  postMessage(message: unknown, targetOrigin: string): void;
};
export type MessageEventLike = { data: unknown; origin: string; source: unknown };
export type PostMessageListenerHost = {
  addEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
};

function isEnvelope(value: unknown, to: Envelope['to']): value is Envelope {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Envelope).channel === POST_MESSAGE_CHANNEL &&
    (value as Envelope).to === to
  );
}

export type WindowPostMessageTransportOptions = {
  /** Where the wallet lives: `window` itself (same page), `window.parent`, or an iframe's contentWindow. */
  target: PostMessageTarget;
  /** The wallet's origin; replies from any other origin are ignored. */
  walletOrigin: string;
  /** Where replies arrive; default the global `window`. */
  host?: PostMessageListenerHost;
};

/** Dapp side of window.postMessage: a wallet in the same page, a parent/child frame or an extension-like context. */
export function createWindowPostMessageTransport(
  options: WindowPostMessageTransportOptions,
): MultichainTransport {
  const messages = createListeners<unknown>();
  const disconnects = createListeners<Error>();
  const host = options.host ?? (globalThis as unknown as { window: PostMessageListenerHost }).window;
  let listener: ((event: MessageEventLike) => void) | undefined;
  return {
    async connect() {
      if (listener) return;
      listener = (event) => {
        if (event.origin !== options.walletOrigin || !isEnvelope(event.data, 'dapp')) return;
        messages.emit(event.data.data);
      };
      host.addEventListener('message', listener);
    },
    send(message) {
      if (!listener) throw new Error('not connected to the wallet');
      const envelope: Envelope = { channel: POST_MESSAGE_CHANNEL, to: 'wallet', data: message };
      options.target.postMessage(envelope, options.walletOrigin);
    },
    async close() {
      if (listener) host.removeEventListener('message', listener);
      listener = undefined;
    },
    isConnected: () => listener !== undefined,
    onMessage: (add) => messages.add(add),
    onDisconnect: (add) => disconnects.add(add),
  };
}

export type ServeWindowPostMessageOptions = {
  /** The window whose messages the wallet receives. */
  host: PostMessageListenerHost;
  /** Origins allowed to talk to the wallet; default any (each still needs approval). */
  allowedOrigins?: string[];
};

/**
 * Wallet side of window.postMessage: every (source window, origin) pair becomes one engine
 * connection whose origin is the event's origin as the browser reports it.
 */
export function serveWindowPostMessage(engine: MultichainEngine, options: ServeWindowPostMessageOptions) {
  const connections = new Map<unknown, EngineConnection>();
  const listener = (event: MessageEventLike) => {
    if (!isEnvelope(event.data, 'wallet')) return;
    if (options.allowedOrigins && !options.allowedOrigins.includes(event.origin)) return;
    const source = event.source as PostMessageTarget | null;
    if (!source || typeof source.postMessage !== 'function') return;
    const origin = event.origin;
    const reply = (data: unknown) => {
      const envelope: Envelope = { channel: POST_MESSAGE_CHANNEL, to: 'dapp', data };
      source.postMessage(envelope, origin);
    };
    let connection = connections.get(source);
    if (!connection || connection.origin !== origin) {
      connection?.close();
      connection = engine.connect(origin, reply);
      connections.set(source, connection);
    }
    connection.handle(event.data.data).then((response) => {
      if (response) reply(response);
    });
  };
  options.host.addEventListener('message', listener);
  return {
    close() {
      options.host.removeEventListener('message', listener);
      for (const connection of connections.values()) connection.close();
      connections.clear();
    },
  };
}
