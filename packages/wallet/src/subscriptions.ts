import { randomBytes } from 'node:crypto';
import type { InvokeContext, Json } from '@portico/multichain';
import WebSocket from 'ws';
import { type RpcClient, RpcError } from './rpc.ts';

type Subscription = { id: string; origin: string; stop: () => void };

export type SubscriptionsOptions = {
  rpc: RpcClient;
  /** When set, subscriptions are relayed from the chain's WebSocket endpoint; else HTTP filters are polled. */
  wsRpcUrl?: string;
  /** Polling period for HTTP filters; default 1 000 ms. */
  pollingIntervalMs?: number;
  onLog?: (line: string) => void;
};

/**
 * eth_subscribe / eth_unsubscribe for one chain: `newHeads` and `logs`, delivered as
 * `eth_subscription` notifications through the engine's notify (wallet_notify to the dapp).
 */
export function createSubscriptions(options: SubscriptionsOptions) {
  const active = new Map<string, Subscription>();
  const log = options.onLog ?? (() => {});

  function viaWebSocket(kind: string, filter: Json | undefined, context: InvokeContext): Promise<string> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(options.wsRpcUrl!);
      let upstreamId: string | undefined;
      const stop = () => {
        if (upstreamId) active.delete(upstreamId);
        ws.close();
      };
      context.signal.addEventListener('abort', stop, { once: true });
      ws.on('open', () => {
        const params = filter ? [kind, filter] : [kind];
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params }));
      });
      ws.on('message', (data) => {
        let message: {
          id?: number;
          result?: string;
          error?: { code: number; message: string; data?: Json };
          method?: string;
          params?: { subscription: string; result: Json };
        };
        try {
          message = JSON.parse(data.toString());
        } catch {
          log(`wallet: ignored a malformed message from ${options.wsRpcUrl}`);
          return;
        }
        if (message.id === 1) {
          if (message.error || typeof message.result !== 'string') {
            stop();
            reject(
              new RpcError(message.error?.code ?? -32603, message.error?.message ?? 'eth_subscribe failed'),
            );
            return;
          }
          upstreamId = message.result;
          active.set(upstreamId, { id: upstreamId, origin: context.origin, stop });
          resolve(upstreamId);
          return;
        }
        if (
          message.method === 'eth_subscription' &&
          upstreamId &&
          message.params?.subscription === upstreamId
        ) {
          context.notify({
            method: 'eth_subscription',
            params: { subscription: upstreamId, result: message.params.result },
          });
        }
      });
      ws.on('error', (error) => {
        stop();
        reject(new RpcError(-32603, `the chain's WebSocket endpoint failed: ${error.message}`));
      });
      ws.on('close', () => {
        if (upstreamId) active.delete(upstreamId);
      });
    });
  }

  async function viaPolling(kind: string, filter: Json | undefined, context: InvokeContext): Promise<string> {
    const filterId = (await options.rpc.request(
      kind === 'newHeads' ? 'eth_newBlockFilter' : 'eth_newFilter',
      kind === 'newHeads' ? [] : [filter ?? {}],
    )) as string;
    const id = `0x${randomBytes(16).toString('hex')}`;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      if (stopped) return;
      try {
        const changes = (await options.rpc.request('eth_getFilterChanges', [filterId])) as Json[];
        for (const change of changes) {
          if (stopped) return;
          const result =
            kind === 'newHeads'
              ? await options.rpc.request('eth_getBlockByHash', [change as string, false])
              : change;
          context.notify({ method: 'eth_subscription', params: { subscription: id, result } });
        }
      } catch (error) {
        log(`wallet: subscription ${id} polling failed: ${String(error)}`);
      }
      if (!stopped) timer = setTimeout(poll, options.pollingIntervalMs ?? 1000);
    };
    const stop = () => {
      stopped = true;
      clearTimeout(timer);
      active.delete(id);
      options.rpc.request('eth_uninstallFilter', [filterId]).catch(() => {});
    };
    context.signal.addEventListener('abort', stop, { once: true });
    active.set(id, { id, origin: context.origin, stop });
    timer = setTimeout(poll, options.pollingIntervalMs ?? 1000);
    return id;
  }

  return {
    async subscribe(params: Json | undefined, context: InvokeContext): Promise<string> {
      const [kind, filter] = Array.isArray(params) ? params : [];
      if (kind !== 'newHeads' && kind !== 'logs') {
        throw new RpcError(
          -32602,
          `unsupported subscription ${JSON.stringify(kind)}: use "newHeads" or "logs"`,
        );
      }
      if (context.signal.aborted) throw new RpcError(-32603, 'the connection is closing');
      return options.wsRpcUrl ? viaWebSocket(kind, filter, context) : viaPolling(kind, filter, context);
    },
    unsubscribe(params: Json | undefined, context: InvokeContext): boolean {
      const [id] = Array.isArray(params) ? params : [];
      const subscription = typeof id === 'string' ? active.get(id) : undefined;
      if (!subscription || subscription.origin !== context.origin) return false;
      subscription.stop();
      active.delete(subscription.id);
      return true;
    },
    close() {
      for (const subscription of active.values()) subscription.stop();
      active.clear();
    },
  };
}
