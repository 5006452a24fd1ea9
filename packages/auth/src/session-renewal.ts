// Renewing a session on the service. Several tabs of one app share the stored sessionId: the first
// to renew wins, and the others take the id it stored instead of renewing the old one again (which
// the service would answer SESSION_ROTATED, and later treat as a copied id).
import { AuthError } from './errors.ts';
import type { RenewedSession, ServiceClient } from './service-client.ts';
import type { StorageAdapter } from './storage.ts';
import type { SessionPayload } from './types.ts';

export type RenewalOutcome =
  | { kind: 'renewed'; renewed: RenewedSession }
  /** Another tab renewed this session already: switch to its sessionId. */
  | { kind: 'adopt'; sessionId: string };

export async function renewOnService(
  client: ServiceClient,
  storage: StorageAdapter,
  storageKey: string,
  sessionId: string,
  stored: SessionPayload,
): Promise<RenewalOutcome> {
  const kept = await storage.get(storageKey);
  if (kept && kept !== sessionId) return { kind: 'adopt', sessionId: kept };
  try {
    const renewed = await client.renewSession(sessionId, stored);
    return { kind: 'renewed', renewed };
  } catch (err) {
    if (err instanceof AuthError && err.code === 'SESSION_ROTATED') {
      const now = await storage.get(storageKey);
      if (now && now !== sessionId) return { kind: 'adopt', sessionId: now };
    }
    throw err;
  }
}
