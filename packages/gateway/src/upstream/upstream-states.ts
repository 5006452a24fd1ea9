import type { UpstreamMember, UpstreamPool } from './upstream-pool.ts';

/** What an operator sees of one upstream (/readyz, the admin API). */
export type UpstreamState = {
  upstream: number;
  name: string;
  host: string;
  breaker: string;
  head: number;
  /** Blocks behind the head the upstreams in service agree on (-1 when unknown). */
  lag: number;
  /** Behind by more than maxLagBlocks: no reads of blocks it lacks until it catches up. */
  lagging: boolean;
  /** In service: breaker not open, a head reported, not cordoned. */
  up: boolean;
  cordoned: boolean;
  /** Cordoned and no call in flight any more: safe to stop. */
  drained: boolean;
  inFlight: number;
  maxConcurrency: number | null;
  /** Methods it answered it does not serve (sent to the others for a while). */
  methodsRefused: string[];
  /** The oldest block whose state it holds (learned when it answered it lacks an older one); 0 when not known to be pruned. */
  oldestState: number;
  /** Its heads arrive as it has them: its `newHeads` subscription is open (`headPush`). */
  headsPushed: boolean;
};

/** Each upstream's state, for /readyz, metrics and the admin API. */
export function upstreamStates(pool: UpstreamPool): UpstreamState[] {
  const head = pool.networkHead();
  return pool.members.map((m, index) => ({
    upstream: index,
    name: m.name,
    host: m.upstream.host,
    breaker: m.breaker.state,
    head: m.head,
    lag: pool.lagOf(m, head),
    lagging: pool.isLagging(m, head),
    up: !m.cordoned && m.breaker.state !== 'open' && m.head >= 0,
    cordoned: m.cordoned,
    drained: m.cordoned && m.inFlight === 0,
    inFlight: m.inFlight,
    maxConcurrency: Number.isFinite(m.maxConcurrency) ? m.maxConcurrency : null,
    methodsRefused: m.refused.list(),
    oldestState: m.oldestState,
    headsPushed: m.headPush?.live === true,
  }));
}

/** The upstream an operator names: by its name, its index or its host:port; undefined when none. */
export function findUpstream(pool: UpstreamPool, id: string): UpstreamMember | undefined {
  return (
    pool.members.find((m) => m.name === id) ??
    (/^\d+$/.test(id) ? pool.members[Number(id)] : undefined) ??
    pool.members.find((m) => m.upstream.host === id)
  );
}
