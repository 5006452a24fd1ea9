import type { Network } from '../network.ts';

export type UpstreamHealth = {
  upstream: number;
  host: string;
  breaker: string;
  head: number;
  /** Blocks behind the head the upstreams in service agree on (-1 when unknown). */
  lag: number;
  /** Behind by more than maxLagBlocks: no reads of blocks it lacks until it catches up. */
  lagging: boolean;
  /** In service: breaker not open and a head reported. */
  up: boolean;
  /** Methods the upstream answered it does not serve (sent to the others for a while). */
  methodsRefused: string[];
};

export type Readiness = {
  ready: boolean;
  status: 'ready' | 'not ready' | 'shutting down';
  networks: Record<string, { ready: boolean; upstreams: UpstreamHealth[] }>;
};

/**
 * Ready when every network has at least one upstream whose breaker is not open and that reported
 * a head, and the gateway is not shutting down. Upstreams are shown by index and host only.
 */
export function readiness(networks: readonly Network[], shuttingDown: boolean): Readiness {
  const detail: Readiness['networks'] = {};
  let all = true;
  for (const network of networks) {
    const pool = network.upstreams;
    const head = pool.networkHead();
    const upstreams = pool.members.map((m, index) => ({
      upstream: index,
      host: m.upstream.host,
      breaker: m.breaker.state,
      head: m.head,
      lag: pool.lagOf(m, head),
      lagging: pool.isLagging(m, head),
      up: m.breaker.state !== 'open' && m.head >= 0,
      methodsRefused: m.refused.list(),
    }));
    const ready = upstreams.some((u) => u.up);
    all &&= ready;
    detail[network.name] = { ready, upstreams };
  }
  const ready = all && !shuttingDown;
  return { ready, status: shuttingDown ? 'shutting down' : ready ? 'ready' : 'not ready', networks: detail };
}
