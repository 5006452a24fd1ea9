import type { WebSocketLike } from './websocket.ts';

/**
 * Opens a socket in Node: the global WebSocket (Node ≥ 22) when no origin is asked for, else the
 * `ws` package, which can set the Origin header a wallet checks. Browser bundles get
 * `open-websocket.browser.ts` instead (package.json `imports`, `browser` condition).
 */
export async function openWebSocket(url: string, origin: string | undefined): Promise<WebSocketLike> {
  const Global = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (Global && origin === undefined) return new Global(url);
  const { default: WebSocket } = await import('ws');
  return new WebSocket(url, origin ? { origin } : {}) as unknown as WebSocketLike;
}
