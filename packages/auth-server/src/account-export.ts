// Key export on the account page, for apps whose export policy is `user` (the app never reads the
// key; the user may take it out here). Shown on the service's own page only, never sent to the
// app's origin, and audited. For a user without MFA the service holds the key (enveloped), so it
// can answer it itself, after a fresh first factor: the sign-in the page was opened from must be
// at most `EXPORT_FRESH_MS` old (renewals do not count; sign in again in the app to export later).
// A user with MFA: the key exists only rebuilt from shares, which this page does not collect yet,
// so it says export is not available (docs/account-page.md).

import { bytesToHex } from '@noble/hashes/utils.js';
import type { KeyExportPolicy } from '@portico/auth';
import { getAppScopedKey } from '@portico/auth/protocol';
import type { AuditLog } from './audit.ts';
import type { Envelope } from './envelope.ts';
import { HttpError } from './http.ts';
import type { AuthStore, ChainRow } from './store.ts';

/** How recent the sign-in must be for an export without MFA. */
export const EXPORT_FRESH_MS = 5 * 60 * 1000;

/**
 * What the page offers: `offered` (the export button), `stale` (sign in again first), `mfa` (not
 * available for MFA accounts yet), `off` (the app's policy is `app` or `off`).
 */
export type ExportOffer = 'offered' | 'stale' | 'mfa' | 'off';

export interface ExportDeps {
  store: AuthStore;
  envelope: Envelope;
  audit: AuditLog;
  exportPolicy: ReadonlyMap<string, KeyExportPolicy>;
  mfaPublicKey: (userId: string) => Promise<string | undefined>;
}

export async function exportOffer(deps: ExportDeps, chain: ChainRow, now: number): Promise<ExportOffer> {
  if ((deps.exportPolicy.get(chain.clientId) ?? 'app') !== 'user') return 'off';
  if (await deps.mfaPublicKey(chain.userId)) return 'mfa';
  return now - chain.createdAt <= EXPORT_FRESH_MS ? 'offered' : 'stale';
}

/** The app-scoped private key (what `getPrivKey()` would return under `app`), or a refusal. */
export async function exportKey(deps: ExportDeps, chain: ChainRow, now: number): Promise<string> {
  const offer = await exportOffer(deps, chain, now);
  if (offer !== 'offered') {
    await deps.audit.record('key.exported', chain.userId, {
      outcome: 'refused',
      clientId: chain.clientId,
      reason: offer,
    });
    if (offer === 'stale') {
      throw new HttpError(
        403,
        'EXPORT_NEEDS_FRESH_LOGIN',
        'Sign in again in the app (within 5 minutes) before exporting the key',
      );
    }
    throw new HttpError(403, 'EXPORT_NOT_OFFERED', 'Key export is not offered here for this app or account');
  }
  // The core key's lookup id is the user id (the same hash of verifier, id and scope).
  const sealed = await deps.store.getCoreKey(chain.userId);
  if (!sealed) throw new HttpError(403, 'EXPORT_NOT_OFFERED', 'This account has no key to export');
  const coreKitKey = bytesToHex(deps.envelope.open(chain.userId, sealed));
  await deps.audit.record('key.exported', chain.userId, { outcome: 'success', clientId: chain.clientId });
  return getAppScopedKey(coreKitKey, chain.clientId);
}
