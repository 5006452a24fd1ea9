import { BaseError } from '../base-error.ts';
import type { NetworkKind } from '../types.ts';

/**
 * Gateway errors, each with a stable JSON-RPC code per network kind and an HTTP status.
 * EVM codes follow what clients already parse (Infura, proxyd, eRPC); Solana's RPC owns
 * -32001..-32019 (node unhealthy -32005, min context slot -32016), so Solana networks use -3204x.
 */
export const GATEWAY_ERRORS = {
  parseError: { evm: -32700, solana: -32700, http: 400 },
  invalidRequest: { evm: -32600, solana: -32600, http: 400 },
  methodNotFound: { evm: -32601, solana: -32601, http: 200 },
  invalidParams: { evm: -32602, solana: -32602, http: 200 },
  internal: { evm: -32603, solana: -32603, http: 500 },
  unauthorized: { evm: -32016, solana: -32040, http: 401 },
  forbidden: { evm: -32002, solana: -32041, http: 403 },
  dailyCreditsExhausted: { evm: -32005, solana: -32042, http: 429 },
  rateLimited: { evm: -32005, solana: -32043, http: 429 },
  batchTooLarge: { evm: -32014, solana: -32044, http: 413 },
  /** Arrays and objects nested beyond `maxJsonDepth`: refused before the body is parsed. */
  nestingTooDeep: { evm: -32600, solana: -32600, http: 400 },
  bodyTooLarge: { evm: -32021, solana: -32045, http: 413 },
  /** An answer the gateway assembles (eth_getLogs in parts) would pass `maxResponseBytes`. */
  answerTooLarge: { evm: -32005, solana: -32047, http: 200 },
  upstreamUnavailable: { evm: -32603, solana: -32603, http: 502 },
  upstreamTimeout: { evm: -32603, solana: -32603, http: 504 },
  /** A shared store (Redis balances, PostgreSQL keys) cannot be reached and the gateway fails closed. */
  storeUnavailable: { evm: -32030, solana: -32046, http: 503 },
} as const satisfies Record<string, { evm: number; solana: number; http: number }>;

export type GatewayErrorName = keyof typeof GATEWAY_ERRORS;

/** An error the gateway answers itself (never an upstream's text); its `code` is its kind. */
export class GatewayError extends BaseError {
  override readonly name: string = 'GatewayError';
  constructor(
    readonly kind: GatewayErrorName,
    message: string,
    readonly data?: unknown,
  ) {
    super(kind, message, { status: GATEWAY_ERRORS[kind].http });
  }

  /** The JSON-RPC error code of this kind on a network of `network`'s kind. */
  rpcCode(network: NetworkKind): number {
    return GATEWAY_ERRORS[this.kind][network];
  }

  get httpStatus(): number {
    return GATEWAY_ERRORS[this.kind].http;
  }
}

/** The stores the gateway may depend on, named in messages so an operator knows which one is down. */
export type StoreName = 'redis' | 'postgresql' | 'sqlite';

export const STORE_LABELS: Readonly<Record<StoreName, string>> = {
  redis: 'Redis (daily balances)',
  postgresql: 'PostgreSQL (keys and usage)',
  sqlite: 'SQLite (keys, usage and balances)',
};

/** A store the answer needs cannot be reached or written (HTTP 503); says which store. */
export class StoreUnavailableError extends GatewayError {
  constructor(
    readonly store: StoreName,
    message: string,
  ) {
    super('storeUnavailable', message);
  }

  override readonly name: string = 'StoreUnavailableError';
}

export const invalidParams = (message: string) => new GatewayError('invalidParams', message);
