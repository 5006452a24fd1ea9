// `chainConfig`: the chain `auth.provider` serves (init's `chainConfig`, `auth.addChain`).
import { type Context, coerce, type Infer, optional } from '@metamask/superstruct';
import { CHAIN_ID_RULES, normalizeChainId } from '../chain-id.ts';
import { url } from './fields.ts';
import { exact, failAt, nonEmptyText, oneOf, rule, text, wholeNumber } from './rules.ts';
import { PROVIDER_NAMESPACES, type ProviderNamespace } from './values.ts';

/** The namespace of the chainConfig that holds the chain id (validated before it). */
function namespaceOf(ctx: Context): ProviderNamespace {
  return ctx.branch[ctx.branch.length - 2].chainNamespace;
}

/** A chain id of the config's namespace, coerced to its one spelling (see `normalizeChainId`). */
const chainId = coerce(
  rule<string>(
    (v, ctx) => normalizeChainId(namespaceOf(ctx), v) !== undefined || CHAIN_ID_RULES[namespaceOf(ctx)],
  ),
  text,
  (v, ctx) => normalizeChainId(namespaceOf(ctx), v) ?? v,
);

/** An http(s) URL; the value is never echoed, since an RPC URL usually carries an API key. */
const rpcTarget = rule<string>((v, ctx) => {
  const allowed = 'an absolute http(s) JSON-RPC URL, e.g. <gateway>/<network>/v3/<API_KEY>';
  if (typeof v !== 'string') return failAt(ctx.path, allowed, typeof v);
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    return failAt(ctx.path, allowed, '(not a URL)');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return failAt(ctx.path, allowed, `(a ${parsed.protocol} URL)`);
  }
  return true;
});

/**
 * A chain for `auth.provider`, named as Web3Auth's `chainConfig` (`CustomChainConfig`). Not in the
 * auth spec (seeds/002), which only names `chainNamespace`.
 */
export const chainConfig = exact(
  {
    chainNamespace: oneOf(PROVIDER_NAMESPACES),
    /**
     * eip155: hex, e.g. `0x7a69` (31337). solana: a CAIP-2 id (`solana:<genesis hash prefix>`), its
     * reference alone, or Web3Auth's `0x1` (mainnet), `0x2` (testnet), `0x3` (devnet).
     */
    chainId,
    /** JSON-RPC URL every read and broadcast goes to: a Portico gateway URL `<baseUrl>/v3/<API_KEY>`. */
    rpcTarget,
    displayName: optional(nonEmptyText),
    /** Native currency symbol, e.g. `ETH`. */
    ticker: optional(nonEmptyText),
    /** Native currency name, e.g. `Ether`. */
    tickerName: optional(nonEmptyText),
    blockExplorerUrl: optional(url('web')),
    logo: optional(url('web')),
    /** Native currency decimals (default 18 on eip155, 9 on solana). */
    decimals: optional(wholeNumber('a whole number from 0 to 36', 0, 36)),
  },
  {
    shape: 'an object with chainNamespace, chainId, rpcTarget',
    listed: [
      'chainNamespace',
      'chainId',
      'rpcTarget',
      'displayName',
      'blockExplorerUrl',
      'ticker',
      'tickerName',
      'logo',
      'decimals',
    ],
  },
);
export type ChainConfig = Infer<typeof chainConfig>;
