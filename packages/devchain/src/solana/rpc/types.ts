import type { Ledger } from '../ledger.ts';

/** A JSON-RPC method: positional params in, result out (or an RpcError thrown). */
export type Handler = (ledger: Ledger, params: unknown[]) => unknown;
