// @portico/auth/providers/eip155: the EIP-1193 provider on its own (viem inside; no @solana/kit).
export type { ChainConfig } from '../../types.ts';
export { ChainRegistry } from '../chains.ts';
export type { ProviderEventMap, RequestArguments } from '../key-backed-provider.ts';
export { createEip155Provider, Eip155Provider, type Eip155ProviderOptions } from './provider.ts';
