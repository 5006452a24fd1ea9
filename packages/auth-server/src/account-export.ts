// Key export on the account page, for apps whose export policy is `user` (the app never reads the
// key; the user may take it out here). Shown on the service's own page only, never sent to the
// app's origin, and audited. For a user without MFA the service holds the key (enveloped), so it
// can answer it itself, after a fresh first factor: the sign-in the page was opened from must be
// at most `EXPORT_FRESH_MS` old (renewals do not count; sign in again in the app to export later).
// A user with MFA: the key exists only rebuilt from shares, so the page takes a typed factor, the
// fresh second factor (./account-export-mfa.ts); an account with none of those factors set up
// cannot export here (docs/account-page.md).

import { bytesToHex } from '@noble/hashes/utils.js';
import type { KeyExportPolicy } from '@portico/auth';
import { getAppScopedKey } from '@portico/auth/protocol';
import { exportFactorsOf } from './account-export-mfa.ts';
import type { AuditLog } from './audit.ts';
import type { Envelope } from './envelope.ts';
import { HttpError } from './http.ts';
import type { MfaRecord } from './mfa.ts';
import type { AuthStore, ChainRow } from './store.ts';

/** How recent the sign-in must be for an export without MFA. */
export const EXPORT_FRESH_MS = 5 * 60 * 1000;

/**
 * What the page offers: `offered` (the export button), `stale` (sign in again first), `factor` (an
 * MFA account: the export takes one of its typed factors), `mfa` (an MFA account with no typed
 * factor the page can take), `off` (the app's policy is `app` or `off`).
 */
export type ExportOffer = 'offered' | 'stale' | 'factor' | 'mfa' | 'off';

export interface ExportDeps {
  store: AuthStore;
  envelope: Envelope;
  audit: AuditLog;
  exportPolicy: ReadonlyMap<string, KeyExportPolicy>;
  /** The user's MFA record when MFA is on. */
  mfaRecord: (userId: string) => Promise<MfaRecord | undefined>;
}

/** The offer, and for `factor` the body fields of the factors the page may take. */
export async function exportOfferOf(
  deps: ExportDeps,
  chain: ChainRow,
  now: number,
): Promise<{ offer: ExportOffer; factors: string[] }> {
  if ((deps.exportPolicy.get(chain.clientId) ?? 'app') !== 'user') return { offer: 'off', factors: [] };
  const record = await deps.mfaRecord(chain.userId);
  if (record) {
    const factors = exportFactorsOf(record);
    return { offer: factors.length ? 'factor' : 'mfa', factors };
  }
  return { offer: now - chain.createdAt <= EXPORT_FRESH_MS ? 'offered' : 'stale', factors: [] };
}

export const exportOffer = async (deps: ExportDeps, chain: ChainRow, now: number): Promise<ExportOffer> =>
  (await exportOfferOf(deps, chain, now)).offer;

/**
 * The app-scoped private key (what `getPrivKey()` would return under `app`) of a user without MFA,
 * or a refusal (an MFA account's export goes through `exportWithFactor`).
 */
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
