import type { Network } from '../network.ts';
import { findUpstream, upstreamStates } from '../upstream/upstream-states.ts';
import { AdminError } from './admin-error.ts';

/**
 * The upstreams part of the admin API:
 * - `GET /admin/upstreams`: every network's upstreams (head, lag, cordoned, drained, in flight,
 *   methods refused);
 * - `POST /admin/upstreams/:network/:upstream/cordon` and `/uncordon`: take an upstream out of
 *   service (no new calls; those in flight finish; `drained` says when none is left) and back.
 *   `:upstream` is its configured name, its index or its host:port.
 */
export function routeUpstreams(
  method: string,
  parts: readonly string[],
  networks: readonly Network[],
): { status: number; body: unknown } {
  if (parts.length === 2 && method === 'GET') {
    return {
      status: 200,
      body: { networks: Object.fromEntries(networks.map((n) => [n.name, upstreamStates(n.upstreams)])) },
    };
  }
  if (parts.length === 5 && method === 'POST' && (parts[4] === 'cordon' || parts[4] === 'uncordon')) {
    const [, , networkName, id, action] = parts;
    const network = networks.find((n) => n.name === networkName);
    if (!network)
      throw new AdminError(
        404,
        'NETWORK_NOT_FOUND',
        `no network ${networkName}; networks: ${networks.map((n) => n.name).join(', ')}`,
      );
    const member = findUpstream(network.upstreams, decodeURIComponent(id));
    if (!member) {
      const names = network.upstreams.members.map((m, index) => `${m.name} (${index}, ${m.upstream.host})`);
      throw new AdminError(
        404,
        'UPSTREAM_NOT_FOUND',
        `no upstream ${id} in ${networkName}; upstreams: ${names.join(', ')}`,
      );
    }
    network.upstreams.cordon(member, action === 'cordon');
    const state = upstreamStates(network.upstreams)[network.upstreams.members.indexOf(member)];
    return { status: 200, body: { network: network.name, ...state } };
  }
  throw new AdminError(404, 'NOT_FOUND', `no admin route ${method} /${parts.join('/')}`);
}
