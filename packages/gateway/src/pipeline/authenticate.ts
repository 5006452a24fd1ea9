import type { ApiKeyRecord, KeyStore } from '../keys/key-store.ts';
import { GatewayError } from '../rpc/errors.ts';

/**
 * Authenticate: the API key from the URL must name a live key (HTTP 401 otherwise). A key store that
 * knows the key in memory answers at once; only a lookup in a shared store gives a Promise.
 */
export function authenticate(keys: KeyStore, key: string | undefined): ApiKeyRecord | Promise<ApiKeyRecord> {
  if (!key) {
    throw new GatewayError('unauthorized', 'API key required in the URL: POST <base address>/v3/<API_KEY>');
  }
  if (key.length > 128) throw new GatewayError('unauthorized', 'invalid API key');
  const found = keys.authenticate(key);
  return found instanceof Promise ? found.then(live) : live(found);
}

function live(record: ApiKeyRecord | undefined): ApiKeyRecord {
  if (!record) throw new GatewayError('unauthorized', 'invalid API key (unknown or revoked)');
  return record;
}
