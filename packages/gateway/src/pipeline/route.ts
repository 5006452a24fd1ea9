import type { Network } from '../network.ts';

export type RpcRoute = { network: Network; key: string | undefined };

const SLASH = 0x2f;

/**
 * Finds the network of a request: by host name first (a network may own a whole host), then by
 * the longest base path. Returns the network and the API key segment after `/v3/`, or undefined
 * when the path is not an RPC path.
 */
export function routeRpc(
  networks: readonly Network[],
  host: string | undefined,
  path: string,
): RpcRoute | 'no-network' | undefined {
  const candidates = networks.some((n) => n.host) ? byHost(networks, host) : networks;
  let best: Network | undefined;
  for (const network of candidates) {
    const base = network.basePath;
    if (best && base.length <= best.basePath.length) continue;
    // `${base}/v3` alone, or followed by a slash.
    const end = base.length + 3;
    if (!path.startsWith(base) || !path.startsWith('/v3', base.length)) continue;
    if (path.length > end && path.charCodeAt(end) !== SLASH) continue;
    best = network;
  }
  if (!best) return /\/v3(\/|$)/.test(path) ? 'no-network' : undefined;
  let from = best.basePath.length + 3;
  let to = path.length;
  if (path.charCodeAt(from) === SLASH) from++;
  if (to > from && path.charCodeAt(to - 1) === SLASH) to--;
  const key = path.slice(from, to);
  return { network: best, key: key.length ? decodeKey(key) : undefined };
}

/** The network that owns the request's host, else every network reachable by path. */
function byHost(networks: readonly Network[], host: string | undefined): readonly Network[] {
  const hostname = host?.replace(/:\d+$/, '').toLowerCase();
  const owner = hostname ? networks.find((n) => n.host === hostname) : undefined;
  return owner ? [owner] : networks.filter((n) => !n.host || n.basePath);
}

/** A malformed %-escape cannot name a key: it is kept as it is and then refused as unknown (401). */
function decodeKey(key: string): string {
  if (!key.includes('%')) return key;
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}
