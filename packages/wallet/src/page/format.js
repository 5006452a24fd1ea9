// How the page writes amounts, addresses and networks for people: rounded amounts (the exact one on
// demand), addresses cut in the middle (the whole one on hover, in copies and for screen readers),
// networks by name.

/** Known networks by CAIP-2 id; any other shows its id. */
const NETWORKS = {
  'eip155:1': 'Ethereum',
  'eip155:10': 'OP Mainnet',
  'eip155:137': 'Polygon',
  'eip155:8453': 'Base',
  'eip155:42161': 'Arbitrum One',
  'eip155:11155111': 'Sepolia',
  'eip155:17000': 'Holesky',
  'eip155:31337': 'Local EVM chain',
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'Solana',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': 'Solana Devnet',
  'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': 'Solana Testnet',
  'solana:PorticoLocal11111111111111111111': 'Local Solana ledger',
};

/** `Local EVM chain` for `eip155:31337`; the id itself for a network the page does not know. */
export function networkName(chainId) {
  return Object.hasOwn(NETWORKS, chainId) ? NETWORKS[chainId] : chainId;
}

/** `0xf39F…2266` (EVM) or `7EcD…FLtV` (Solana): enough to recognise, short enough not to wrap. */
export function shortAddress(address) {
  const head = address.startsWith('0x') ? 6 : 4;
  return address.length <= head + 6 ? address : `${address.slice(0, head)}…${address.slice(-4)}`;
}

const DIGITS = 4;

/**
 * `9999.999522923139276572 ETH` as `9,999.9995 ETH`: at most four decimals, rounded half up on the
 * decimal string (no floating point), grouped; a positive amount below 0.0001 is `< 0.0001 ETH`.
 * Text that is not `<amount> <unit>` is returned as it is.
 */
export function roundAmount(text) {
  const match = /^(\d+)(?:\.(\d+))?( .+)?$/.exec(text);
  if (!match) return text;
  const [, whole, fraction = '', unit = ''] = match;
  const scaled = BigInt(whole + fraction.padEnd(DIGITS, '0').slice(0, DIGITS));
  const roundUp = fraction.length > DIGITS && Number(fraction[DIGITS]) >= 5 ? 1n : 0n;
  const rounded = scaled + roundUp;
  if (rounded === 0n && /[1-9]/.test(fraction)) return `< 0.${'0'.repeat(DIGITS - 1)}1${unit}`;
  const integer = (rounded / 10n ** BigInt(DIGITS)).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const decimals = (rounded % 10n ** BigInt(DIGITS)).toString().padStart(DIGITS, '0').replace(/0+$/, '');
  return `${integer}${decimals ? `.${decimals}` : ''}${unit}`;
}
