import {
  contractsAllowed,
  methodAllowed,
  originAllowed,
  secretAccepted,
  userAgentAllowed,
} from '../keys/key-settings.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import { GatewayError } from '../rpc/errors.ts';

const rejected = (why: string) =>
  new GatewayError('forbidden', `rejected due to project ID settings: ${why}`);

/** Key settings, per request: the key's origin and user-agent allowlists and its secret, for the whole request (HTTP 403). */
export function enforceRequestSettings(
  key: ApiKeyRecord,
  headers: { origin?: string; userAgent?: string; authorization?: string },
) {
  const { settings } = key;
  if (!secretAccepted(settings, headers.authorization)) {
    throw rejected('this key requires its secret (HTTP Basic authentication, any user name)');
  }
  if (!originAllowed(settings, headers.origin))
    throw rejected(`origin ${headers.origin ?? '(none)'} is not allowed`);
  if (!userAgentAllowed(settings, headers.userAgent)) throw rejected('user agent is not allowed');
}

/** Key settings, per item: the key's method and contract allowlists, per request item (before any charge). */
export function enforceItemSettings(
  key: ApiKeyRecord,
  method: string,
  params: unknown[],
  contractsOf?: (params: unknown[]) => string[],
) {
  if (!methodAllowed(key.settings, method)) throw rejected(`method ${method} is not allowed`);
  if (key.settings.allowedContracts.length > 0 && !contractsAllowed(key.settings, contractsOf?.(params)))
    throw rejected(`${method} to this contract is not allowed`);
}
