/**
 * The ledger's WebSocket PubSub endpoint (same port as HTTP, as `ws://`), with the subscriptions
 * @solana/kit's confirmation strategies use: `signatureSubscribe` (one notification when the
 * transaction reaches the commitment, then the subscription ends, as in agave) and `slotSubscribe`
 * (`{parent, root, slot}` on every slot), with their `*Unsubscribe`.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { RpcError } from './errors.ts';
import { stringifyJson } from './json.ts';
import type { Commitment, Ledger } from './ledger.ts';
import { commitmentOf, configAt, parseSignature, stringAt } from './rpc/params.ts';

type Subscription =
  | { kind: 'slot'; lastSlot: number }
  | { kind: 'signature'; signature: string; commitment: Commitment };

export type PubSub = { close(): Promise<void> };

export function attachPubSub(server: Server, ledger: Ledger, log: (line: string) => void): PubSub {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  let nextId = 0;
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  };
  server.on('upgrade', onUpgrade);

  wss.on('connection', (ws: WebSocket) => {
    const subscriptions = new Map<number, Subscription>();
    const send = (message: unknown) => {
      if (ws.readyState === ws.OPEN) ws.send(stringifyJson(message));
    };
    const notify = (id: number, method: string, result: unknown) =>
      send({ jsonrpc: '2.0', method, params: { result, subscription: id } });

    const check = (id: number, subscription: Subscription) => {
      if (subscription.kind === 'slot') {
        const slot = ledger.slot;
        if (slot === subscription.lastSlot) return;
        subscription.lastSlot = slot;
        notify(id, 'slotNotification', {
          parent: Math.max(0, slot - 1),
          root: ledger.slotAt('finalized'),
          slot,
        });
        return;
      }
      const tx = ledger.getTransaction(subscription.signature, subscription.commitment);
      if (!tx) return;
      subscriptions.delete(id);
      notify(id, 'signatureNotification', {
        context: { slot: ledger.slotAt(subscription.commitment) },
        value: { err: tx.err },
      });
    };
    const stopListening = ledger.listen(() => {
      for (const [id, subscription] of subscriptions) check(id, subscription);
    });
    ws.on('close', stopListening);
    ws.on('error', (error) => log(`solana: websocket error: ${error.message}`));

    ws.on('message', (data) => {
      let request: { id?: unknown; method?: unknown; params?: unknown };
      try {
        request = JSON.parse(data.toString());
      } catch {
        return send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      }
      const id = typeof request.id === 'number' || typeof request.id === 'string' ? request.id : null;
      const params = Array.isArray(request.params) ? request.params : [];
      try {
        let result: unknown;
        switch (request.method) {
          case 'slotSubscribe': {
            const subscriptionId = nextId++;
            subscriptions.set(subscriptionId, { kind: 'slot', lastSlot: ledger.slot });
            result = subscriptionId;
            break;
          }
          case 'signatureSubscribe': {
            const signature = parseSignature(stringAt(params, 0, 'signature'));
            const subscription: Subscription = {
              kind: 'signature',
              signature,
              commitment: commitmentOf(configAt(params, 1)),
            };
            const subscriptionId = nextId++;
            subscriptions.set(subscriptionId, subscription);
            send({ jsonrpc: '2.0', result: subscriptionId, id });
            check(subscriptionId, subscription);
            return;
          }
          case 'slotUnsubscribe':
          case 'signatureUnsubscribe': {
            const subscriptionId = params[0];
            if (typeof subscriptionId !== 'number' || !subscriptions.has(subscriptionId)) {
              throw new RpcError('invalid_params', 'Invalid subscription id.');
            }
            subscriptions.delete(subscriptionId);
            result = true;
            break;
          }
          default:
            throw new RpcError('method_not_found', 'Method not found');
        }
        send({ jsonrpc: '2.0', result, id });
      } catch (error) {
        const rpcError = error instanceof RpcError ? error : new RpcError('internal', 'Internal error');
        send({ jsonrpc: '2.0', error: { code: rpcError.rpcCode, message: rpcError.message }, id });
      }
    });
  });

  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.off('upgrade', onUpgrade);
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
