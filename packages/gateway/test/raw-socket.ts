// A WebSocket client for tests that send text exactly as written and read answers as text, one
// at a time (the fuzz suite and the hostile-input tests send bodies no JSON library would write).
import { once } from 'node:events';
import WebSocket from 'ws';

export type RawSocket = {
  /** Sends `text` and resolves with the next message (an answer), or rejects after `timeoutMs`. */
  exchange: (text: string, timeoutMs?: number) => Promise<string>;
  socket: WebSocket;
  close: () => Promise<void>;
};

/** `{base}/ws/v3/<key>` of an HTTP RPC address `{base}/v3/<key>`. */
export const wsUrlOf = (rpcUrl: string) => rpcUrl.replace(/^http/, 'ws').replace(/\/v3\//, '/ws/v3/');

export async function openRawSocket(url: string): Promise<RawSocket> {
  const socket = new WebSocket(url);
  const waiting: ((text: string) => void)[] = [];
  socket.on('message', (data) => waiting.shift()?.(String(data)));
  await once(socket, 'open');
  return {
    socket,
    exchange(text, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
        waiting.push((answer) => {
          clearTimeout(timer);
          resolve(answer);
        });
        socket.send(text);
      });
    },
    async close() {
      if (socket.readyState === WebSocket.CLOSED) return;
      const closed = once(socket, 'close');
      socket.close();
      await closed;
    },
  };
}
