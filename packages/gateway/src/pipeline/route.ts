import type { Network } from '../network.ts';

export type RpcRoute = { network: Network; key: string | undefined };

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
  const hostname = host?.replace(/:\d+$/, '').toLowerCase();
  const byHost = hostname ? networks.find((n) => n.host === hostname) : undefined;
  const candidates = byHost ? [byHost] : networks.filter((n) => !n.host || n.basePath);
  let best: Network | undefined;
  for (const network of candidates) {
    const base = network.basePath;
    if (
      (path === `${base}/v3` || path.startsWith(`${base}/v3/`)) &&
      (!best || base.length > best.basePath.length)
    ) {
      best = network;
    }
  }
  if (!best) return /\/v3(\/|$)/.test(path) ? 'no-network' : undefined;
  const rest = path.slice(best.basePath.length + '/v3'.length);
  const key = rest.replace(/^\//, '').replace(/\/$/, '');
  return { network: best, key: key.length ? decodeKey(key) : undefined };
}

/** A malformed %-escape cannot name a key: it is kept as it is and then refused as unknown (401). */
function decodeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}
