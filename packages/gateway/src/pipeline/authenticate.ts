import type { ApiKeyRecord, KeyStore } from '../keys/key-store.ts';
import { GatewayError } from '../rpc/errors.ts';

/** Stage 1: the API key from the URL must name a live key (HTTP 401 otherwise). */
export async function authenticate(keys: KeyStore, key: string | undefined): Promise<ApiKeyRecord> {
  if (!key) {
    throw new GatewayError('unauthorized', 'API key required in the URL: POST <base address>/v3/<API_KEY>');
  }
  if (key.length > 128) throw new GatewayError('unauthorized', 'invalid API key');
  const record = await keys.authenticate(key);
  if (!record) throw new GatewayError('unauthorized', 'invalid API key (unknown or revoked)');
  return record;
}
