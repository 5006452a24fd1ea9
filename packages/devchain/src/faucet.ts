// The development faucet of `portico dev`: tops addresses up on the embedded chains only — anvil
// (`anvil_setBalance`, which adds no transaction and touches no dev account's nonce) and the LiteSVM
// ledger (`requestAirdrop`: a real transfer from the ledger's own faucet, visible in histories).
// It is built from the chains `startAnvil` and `startSolanaLedger` return, and refuses an "anvil"
// that is not one, so it never points at a network that is not a dev chain.
import {
  createSolanaRpc,
  devnet,
  isAddress as isSolanaAddress,
  lamports,
  address as solanaAddress,
} from '@solana/kit';
import {
  createPublicClient,
  createTestClient,
  formatUnits,
  getAddress,
  http,
  isAddress,
  parseUnits,
} from 'viem';
import { DevchainError } from './base-error.ts';

export type FaucetNamespace = 'eip155' | 'solana';

/** What a faucet call did: the address, what it added and what it holds now. */
export interface FundResult {
  namespace: FaucetNamespace;
  /** CAIP-2 chain id of the dev chain. */
  chainId: string;
  /** EIP-55 (eip155) or base58 (solana). */
  address: string;
  /** Added, in wei / lamports. */
  amount: bigint;
  /** Held afterwards, in wei / lamports. */
  balance: bigint;
  symbol: 'ETH' | 'SOL';
  decimals: 18 | 9;
  /** Solana: the airdrop's transaction signature. */
  signature?: string;
}

/** The faucet's refusals by stable code, with the HTTP status `POST /dev/fund` answers them with. */
const FAUCET_ERROR_STATUS = {
  INVALID_REQUEST: 400,
  INVALID_ADDRESS: 400,
  INVALID_AMOUNT: 400,
  NO_CHAIN: 404,
  NOT_A_DEV_CHAIN: 400,
  CHAIN_ERROR: 502,
} as const;

export type FaucetErrorCode = keyof typeof FAUCET_ERROR_STATUS;

/** A refusal a person can act on: `code` is stable, `message` says what to change. */
export class FaucetError extends DevchainError {
  override readonly name: string = 'FaucetError';
  declare readonly code: FaucetErrorCode;
  declare readonly status: number;
  constructor(code: FaucetErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { status: FAUCET_ERROR_STATUS[code], cause: options.cause });
  }
}

export interface DevFaucet {
  /** The dev chains it funds on, by namespace (CAIP-2). */
  readonly chains: Partial<Record<FaucetNamespace, string>>;
  /** The default amount of `fund` and what a first login gets, in wei / lamports. */
  readonly amounts: Record<FaucetNamespace, bigint>;
  /** Adds `amount` (default `amounts[namespace]`) to an address. The reference wallet's "top up". */
  fund(namespace: FaucetNamespace, address: string, amount?: bigint): Promise<FundResult>;
  /** Funds an address that holds nothing yet (a new user); undefined when it holds something. */
  fundIfEmpty(namespace: FaucetNamespace, address: string): Promise<FundResult | undefined>;
}

/** The embedded chains, as `startAnvil` / `startSolanaLedger` return them. */
export interface DevFaucetChains {
  anvil?: { url: string; chainId: number };
  solana?: { url: string; chainId: string };
}

const UNITS = {
  eip155: { symbol: 'ETH', decimals: 18 },
  solana: { symbol: 'SOL', decimals: 9 },
} as const;

/** 10 ETH and 10 SOL. */
export const DEFAULT_FAUCET_AMOUNTS: Record<FaucetNamespace, bigint> = {
  eip155: parseUnits('10', 18),
  solana: parseUnits('10', 9),
};

/** The most one call adds: 1,000,000 ETH / SOL (the ledger's airdrops stop at 2^53 - 1 lamports). */
const MAX_UNITS = 1_000_000n;

/** The namespace of an address: `0x` + 40 hex is eip155, 32 bytes of base58 is solana. */
export function namespaceOfAddress(address: string): FaucetNamespace | undefined {
  if (isAddress(address, { strict: false })) return 'eip155';
  if (isSolanaAddress(address)) return 'solana';
  return undefined;
}

/** A decimal amount of ETH / SOL (`"2.5"`) in wei / lamports; throws `INVALID_AMOUNT`. */
export function parseFaucetAmount(namespace: FaucetNamespace, text: string): bigint {
  const { symbol, decimals } = UNITS[namespace];
  const invalid = () =>
    new FaucetError(
      'INVALID_AMOUNT',
      `amount must be a number of ${symbol} above 0 and at most ${MAX_UNITS} (up to ${decimals} decimals), e.g. 2.5`,
    );
  if (!/^\d{1,16}(\.\d+)?$/.test(text.trim())) throw invalid();
  const [, fraction = ''] = text.trim().split('.');
  if (fraction.length > decimals) throw invalid();
  const value = parseUnits(text.trim(), decimals);
  checkAmount(namespace, value);
  return value;
}

/** An amount in ETH / SOL, exact (`"2.5 ETH"`). */
export function formatFaucetAmount(namespace: FaucetNamespace, value: bigint): string {
  const { symbol, decimals } = UNITS[namespace];
  return `${formatUnits(value, decimals)} ${symbol}`;
}

function checkAmount(namespace: FaucetNamespace, value: bigint): void {
  const { symbol, decimals } = UNITS[namespace];
  if (value <= 0n || value > MAX_UNITS * 10n ** BigInt(decimals)) {
    throw new FaucetError('INVALID_AMOUNT', `amount must be above 0 and at most ${MAX_UNITS} ${symbol}`);
  }
}

function checkedAddress(namespace: FaucetNamespace, address: string): string {
  if (namespace === 'eip155') {
    if (!isAddress(address, { strict: false })) {
      throw new FaucetError(
        'INVALID_ADDRESS',
        `${short(address)} is not an EVM address (0x and 40 hex digits)`,
      );
    }
    return getAddress(address);
  }
  if (!isSolanaAddress(address)) {
    throw new FaucetError(
      'INVALID_ADDRESS',
      `${short(address)} is not a Solana address (32 bytes in base58)`,
    );
  }
  return address;
}

function short(text: string): string {
  const printable = String(text).replace(/[^\x20-\x7e]/g, '?');
  return JSON.stringify(printable.length > 60 ? `${printable.slice(0, 60)}…` : printable);
}

async function onChain<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new FaucetError('CHAIN_ERROR', `${what} failed: ${(error as Error).message.split('\n')[0]}`, {
      cause: error,
    });
  }
}

/**
 * Adds `wei` to an address on anvil with `anvil_setBalance` (read, add, set; callers serialise
 * calls for one address). Returns the new balance.
 */
export async function fundEvm(anvilUrl: string, address: string, wei: bigint): Promise<bigint> {
  const account = getAddress(address);
  const transport = http(anvilUrl, { retryCount: 0 });
  const reader = createPublicClient({ transport });
  const balance = await onChain('eth_getBalance', () => reader.getBalance({ address: account }));
  const next = balance + wei;
  await onChain('anvil_setBalance', () =>
    createTestClient({ mode: 'anvil', transport }).setBalance({ address: account, value: next }),
  );
  return next;
}

/** Airdrops `lamports` to an address on the dev ledger: a real transfer. Returns its signature and the new balance. */
export async function fundSolana(
  ledgerUrl: string,
  address: string,
  amount: bigint,
): Promise<{ signature: string; balance: bigint }> {
  const rpc = createSolanaRpc(devnet(ledgerUrl));
  const to = solanaAddress(address);
  const signature = await onChain('requestAirdrop', () => rpc.requestAirdrop(to, lamports(amount)).send());
  // The ledger applies a transaction to the newest slot at once: the balance is there now.
  const { value } = await onChain('getBalance', () => rpc.getBalance(to, { commitment: 'processed' }).send());
  return { signature, balance: value };
}

async function balanceOf(
  chains: DevFaucetChains,
  namespace: FaucetNamespace,
  address: string,
): Promise<bigint> {
  if (namespace === 'eip155') {
    const reader = createPublicClient({ transport: http(chains.anvil?.url, { retryCount: 0 }) });
    return onChain('eth_getBalance', () => reader.getBalance({ address: getAddress(address) }));
  }
  const rpc = createSolanaRpc(devnet(chains.solana?.url ?? ''));
  const { value } = await onChain('getBalance', () =>
    rpc.getBalance(solanaAddress(address), { commitment: 'processed' }).send(),
  );
  return value;
}

/**
 * The faucet of the embedded chains. Checks that `anvil` is anvil (`web3_clientVersion`), so the
 * faucet cannot be pointed at another EVM node.
 */
export async function createDevFaucet(
  chains: DevFaucetChains,
  options: { amounts?: Partial<Record<FaucetNamespace, bigint>> } = {},
): Promise<DevFaucet> {
  if (chains.anvil) {
    const reader = createPublicClient({ transport: http(chains.anvil.url, { retryCount: 0 }) });
    const version: unknown = await onChain('web3_clientVersion', () =>
      reader.request({ method: 'web3_clientVersion' }),
    );
    if (typeof version !== 'string' || !version.startsWith('anvil/')) {
      throw new FaucetError('NOT_A_DEV_CHAIN', `${chains.anvil.url} is not anvil: no faucet there`);
    }
  }
  const amounts = { ...DEFAULT_FAUCET_AMOUNTS, ...options.amounts };
  for (const namespace of ['eip155', 'solana'] as const) checkAmount(namespace, amounts[namespace]);
  const ids: Partial<Record<FaucetNamespace, string>> = {};
  if (chains.anvil) ids.eip155 = `eip155:${chains.anvil.chainId}`;
  if (chains.solana) ids.solana = chains.solana.chainId;
  // One call at a time per address: anvil's top-up reads, adds and sets the balance.
  const queues = new Map<string, Promise<unknown>>();
  const serial = <T>(key: string, run: () => Promise<T>): Promise<T> => {
    const next = (queues.get(key) ?? Promise.resolve()).then(run, run);
    const settled = next.catch(() => {});
    queues.set(key, settled);
    void settled.then(() => {
      if (queues.get(key) === settled) queues.delete(key);
    });
    return next;
  };

  async function fund(namespace: FaucetNamespace, address: string, amount?: bigint): Promise<FundResult> {
    if (namespace !== 'eip155' && namespace !== 'solana') {
      throw new FaucetError('NO_CHAIN', `no faucet for namespace ${short(namespace)} (eip155, solana)`);
    }
    const chainId = ids[namespace];
    if (!chainId) throw new FaucetError('NO_CHAIN', `no ${namespace} dev chain runs here`);
    const target = checkedAddress(namespace, address);
    const value = amount ?? amounts[namespace];
    checkAmount(namespace, value);
    const { symbol, decimals } = UNITS[namespace];
    const result = { namespace, chainId, address: target, amount: value, symbol, decimals };
    if (namespace === 'eip155') {
      const balance = await serial(`eip155:${target}`, () => fundEvm(chains.anvil?.url ?? '', target, value));
      return { ...result, balance };
    }
    const { signature, balance } = await fundSolana(chains.solana?.url ?? '', target, value);
    return { ...result, balance, signature };
  }

  return {
    chains: ids,
    amounts,
    fund,
    async fundIfEmpty(namespace, address) {
      if (!ids[namespace]) return undefined;
      const balance = await balanceOf(chains, namespace, checkedAddress(namespace, address));
      return balance === 0n ? fund(namespace, address) : undefined;
    },
  };
}
