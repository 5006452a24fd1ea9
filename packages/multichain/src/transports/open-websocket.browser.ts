import type { WebSocketLike } from './websocket.ts';

/**
 * Opens a socket with the browser's WebSocket. The browser sends the page's own Origin, so
 * `origin` is not used here; the Node variant (`open-websocket.node.ts`) can set it.
 */
export async function openWebSocket(url: string, _origin: string | undefined): Promise<WebSocketLike> {
  const Browser = (globalThis as { WebSocket?: new (url: string) => WebSocketLike }).WebSocket;
  if (!Browser) throw new Error('this environment has no WebSocket; pass createWebSocket to the transport');
  return new Browser(url);
}
