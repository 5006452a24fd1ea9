import type { Network } from '../network.ts';
import { type UpstreamState, upstreamStates } from '../upstream/upstream-states.ts';

export type UpstreamHealth = UpstreamState;

export type Readiness = {
  ready: boolean;
  status: 'ready' | 'not ready' | 'shutting down';
  networks: Record<string, { ready: boolean; upstreams: UpstreamHealth[] }>;
};

/**
 * Ready when every network has at least one upstream in service (breaker not open, a head
 * reported, not cordoned), and the gateway is not shutting down. Upstreams are shown by index,
 * name and host only (never their URL), with head, lag, cordon and the methods they refused.
 */
export function readiness(networks: readonly Network[], shuttingDown: boolean): Readiness {
  const detail: Readiness['networks'] = {};
  let all = true;
  for (const network of networks) {
    const upstreams = upstreamStates(network.upstreams);
    const ready = upstreams.some((u) => u.up);
    all &&= ready;
    detail[network.name] = { ready, upstreams };
  }
  const ready = all && !shuttingDown;
  return { ready, status: shuttingDown ? 'shutting down' : ready ? 'ready' : 'not ready', networks: detail };
}
