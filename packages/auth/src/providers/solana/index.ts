// @portico/auth/providers/solana: the Solana provider on its own (@solana/kit inside; no viem).
export type { ChainConfig } from '../../types.ts';
export { ChainRegistry } from '../chains.ts';
export type { ProviderEventMap, RequestArguments } from '../key-backed-provider.ts';
export { createSolanaProvider, SolanaProvider, type SolanaProviderOptions } from './provider.ts';
export type { SolanaKitSigner } from './signer.ts';
export type { SolanaTransactionInput } from './transaction.ts';
export { SolanaWallet } from './wallet.ts';
