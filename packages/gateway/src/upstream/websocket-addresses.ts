// Where an upstream's WebSocket may be when only its HTTP address is configured, for pushed heads
// and for the subscriptions clients open through the gateway.

/**
 * The ws(s):// addresses to try for the WebSocket of the node at `httpUrl`, most likely first:
 * its own address (anvil, Erigon and Nethermind serve both on one port, as do Alchemy and
 * QuickNode), then where the common nodes, providers and Portico itself put it instead.
 */
export function wsAddressesOf(httpUrl: string): string[] {
  const url = new URL(httpUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  const same = url.toString();
  const at = (change: (address: URL) => void) => {
    const address = new URL(same);
    change(address);
    return address.toString();
  };
  // `…/v3/<key>` is `…/ws/v3/<key>` on Infura (only there) and on Portico's own gateway.
  const keyed = /^(.*)\/v3\/([^/]+)\/?$/.exec(url.pathname);
  const wsKeyed = keyed && at((address) => (address.pathname = `${keyed[1]}/ws/v3/${keyed[2]}`));
  if (wsKeyed && /(^|\.)infura\.io$/.test(url.hostname)) return [wsKeyed];
  // Ankr: https://rpc.ankr.com/<chain>/<key> is wss://rpc.ankr.com/<chain>/ws/<key>.
  const [, chain, ...key] = url.pathname.split('/');
  if (url.hostname === 'rpc.ankr.com' && chain && key.some((part) => part.length > 0)) {
    return [at((address) => (address.pathname = `/${chain}/ws/${key.join('/')}`))];
  }
  const addresses = wsKeyed ? [same, wsKeyed] : [same];
  // geth, reth and Besu answer HTTP on 8545 and serve their WebSocket on 8546 by default.
  if (url.port === '8545') addresses.push(at((address) => (address.port = '8546')));
  return addresses;
}

/**
 * The addresses to try for each upstream's pushed heads (one list per upstream, in order): the
 * configured `wsUpstreams` when they pair one to one with `upstreams`, else `wsAddressesOf` each
 * upstream; with another number of `wsUpstreams` they cannot be paired, and heads are polled.
 */
export function pushAddressesOf(
  upstreams: readonly (string | { url: string })[],
  wsUpstreams: readonly string[] | undefined,
): string[][] {
  if (!wsUpstreams)
    return upstreams.map((entry) => wsAddressesOf(typeof entry === 'string' ? entry : entry.url));
  return wsUpstreams.length === upstreams.length ? wsUpstreams.map((url) => [url]) : [];
}
