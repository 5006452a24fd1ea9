import type { IncomingHttpHeaders } from 'node:http';
import type { ApiKeyRecord, KeyStore } from '../keys/key-store.ts';
import type { Network } from '../network.ts';
import { GatewayError } from '../rpc/errors.ts';
import type { AccessEntry } from '../types.ts';
import { authenticate } from './authenticate.ts';
import { enforceRequestSettings } from './enforce-settings.ts';
import type { RpcOutcome } from './handle-rpc.ts';
import { type RpcRoute, routeRpc } from './route.ts';

/** The transports a request arrives by; each has its own addresses, all share one admission. */
export type Transport = 'http' | 'ws';

/**
 * Admit: the network a request's host and path name. HTTP RPC is at `{base}/v3/<key>`, a
 * WebSocket at `{base}/ws/v3/<key>`, routed alike. `no-network`: an RPC-looking path no network
 * serves; undefined: not an RPC path.
 */
export function routeRequest(
  networks: readonly Network[],
  transport: Transport,
  host: string | undefined,
  path: string,
): RpcRoute | 'no-network' | undefined {
  if (transport === 'http') return routeRpc(networks, host, path);
  const match = /^(.*)\/ws(\/v3(?:\/.*)?)$/.exec(path);
  return match ? routeRpc(networks, host, `${match[1]}${match[2]}`) : undefined;
}

/** The message of the 404 for a path that names no network: the addresses there are. */
export function unroutedMessage(networks: readonly Network[], transport: Transport, path: string): string {
  if (transport === 'http') {
    const known = networks.map((n) => `${n.basePath}/v3/<API_KEY>`).join(', ');
    return `no network at ${path}; RPC addresses are ${known}`;
  }
  const known = networks.map((n) => `${n.basePath}/ws/v3/<API_KEY>`).join(', ');
  return `no WebSocket RPC at ${path}; addresses are ${known}`;
}

/**
 * Stages 1 and 1b, for every transport: the key from the URL must be live (401), and the request's
 * origin, user agent and secret must pass the key's settings (403). Throws (or rejects with) a
 * GatewayError, nothing else; answers at once when the key store knows the key in memory.
 */
export function admitKey(
  keys: KeyStore,
  route: RpcRoute,
  headers: IncomingHttpHeaders,
): ApiKeyRecord | Promise<ApiKeyRecord> {
  try {
    const found = authenticate(keys, route.key);
    if (found instanceof Promise) return found.then((record) => admitted(record, headers), asAdmissionError);
    return admitted(found, headers);
  } catch (error) {
    return asAdmissionError(error);
  }
}

function admitted(record: ApiKeyRecord, headers: IncomingHttpHeaders): ApiKeyRecord {
  enforceRequestSettings(record, {
    origin: headers.origin,
    userAgent: headers['user-agent'],
    authorization: headers.authorization,
  });
  return record;
}

function asAdmissionError(error: unknown): never {
  if (error instanceof GatewayError) throw error;
  throw new GatewayError('internal', 'Internal error in the gateway');
}

/** The access-log entry of one answered request (key id only, never the key). */
export function accessEntry(
  transport: Transport,
  keyId: string,
  network: Network,
  outcome: Pick<RpcOutcome, 'method' | 'batchSize' | 'status' | 'body'>,
  started: number,
): AccessEntry {
  return {
    transport,
    keyId,
    network: network.name,
    method: outcome.method,
    batchSize: outcome.batchSize,
    status: outcome.body === undefined ? 204 : outcome.status,
    ms: Math.round((performance.now() - started) * 100) / 100,
  };
}
