// Where an upstream's WebSocket may be when only its HTTP address is configured, for pushed heads
// and for the subscriptions clients open through the gateway.

/**
 * The ws(s):// addresses to try for the WebSocket of the node at `httpUrl`, most likely first:
 * its own address (anvil, Erigon and Nethermind serve both on one port, as do Alchemy and
 * QuickNode), then where the common nodes and providers put it instead.
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
  // Infura: https://<network>.infura.io/v3/<key> is wss://<network>.infura.io/ws/v3/<key>.
  if (/(^|\.)infura\.io$/.test(url.hostname) && url.pathname.startsWith('/v3/')) {
    return [at((address) => (address.pathname = `/ws${url.pathname}`))];
  }
  // Ankr: https://rpc.ankr.com/<chain>/<key> is wss://rpc.ankr.com/<chain>/ws/<key>.
  const [, chain, ...key] = url.pathname.split('/');
  if (url.hostname === 'rpc.ankr.com' && chain && key.some((part) => part.length > 0)) {
    return [at((address) => (address.pathname = `/${chain}/ws/${key.join('/')}`))];
  }
  // geth, reth and Besu answer HTTP on 8545 and serve their WebSocket on 8546 by default.
  if (url.port === '8545') return [same, at((address) => (address.port = '8546'))];
  return [same];
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
