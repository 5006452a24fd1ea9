// Key export on the account page for a user WITH MFA, under export policy `user`
// (docs/account-page.md). The key exists only as shares, so the page takes a typed factor the user
// set up (password, backup phrase, authenticator code): it is the fresh second factor. Checked as
// `/api/mfa/factor` checks it, under the same attempt limits and audit, its share is combined with
// the service's share here, the rebuilt key checked against the record's public key, and the
// app-scoped key answered to the page only. Nothing typed, no share and no key is stored or logged.
import type { MfaFactor } from '@portico/auth';
import { combineShares, getAppScopedKey, secp256k1PublicKey } from '@portico/auth/protocol';
import { InvalidBodyError } from './body.ts';
import { FACTORS, type FactorModule } from './factors/index.ts';
import { HttpError } from './http.ts';
import type { LoginContext } from './login/context.ts';
import { chainCaller, typedShare } from './login/factor-check.ts';
import type { MfaRecord } from './mfa.ts';
import type { ChainRow } from './store.ts';

/**
 * The factors the page takes for an export: those checked from the record and the user id alone.
 * Not the MFA passkey (it answers a WebAuthn challenge, which this page does not ask for yet),
 * not social backup (a second login, whose id depends on the login's network), not a device share
 * (it lives in the app's storage, which under `user` holds none).
 */
export const EXPORT_FACTORS: readonly MfaFactor[] = [
  'passwordFactor',
  'backUpShareFactor',
  'authenticatorFactor',
];

/** The body fields of the user's export factors (`password`, `backupPhrase`, `authenticatorCode`), in that order. */
export function exportFactorsOf(record: MfaRecord): string[] {
  return EXPORT_FACTORS.filter((f) => record.factors.includes(f)).map((f) => FACTORS[f].check!.field);
}

/** What a page's export call may carry beside its token: one typed factor. */
export interface TypedExportFactor {
  password?: string;
  backupPhrase?: string;
  authenticatorCode?: string;
}

const FIELDS = EXPORT_FACTORS.map((f) => FACTORS[f].check!.field).join(', ');

/** The one factor the body names, or 400 `INVALID_BODY`. */
function factorOf(input: TypedExportFactor): { module: FactorModule; value: string } {
  const given = EXPORT_FACTORS.map((f) => FACTORS[f]).filter(
    (m) => input[m.check!.field as keyof TypedExportFactor] !== undefined,
  );
  if (given.length !== 1) {
    throw new InvalidBodyError(
      given.length ? given[0].check!.field : 'password',
      `Send exactly one second factor with the token: ${FIELDS}`,
    );
  }
  const module = given[0];
  return { module, value: String(input[module.check!.field as keyof TypedExportFactor]) };
}

/**
 * The app-scoped private key of the page's user (what `getPrivKey()` returns under `app`), rebuilt
 * from the service's share and the share of the typed factor in `input`. The caller has checked
 * the page's token, its right to act on the account, and that the offer is `factor`. Every refusal
 * is audited `key.exported` (`refused`, with the reason the page is told).
 */
export async function exportWithFactor(
  ctx: LoginContext,
  chain: ChainRow,
  input: TypedExportFactor,
  address: string,
): Promise<string> {
  const { audit } = ctx.deps;
  const refused = (reason: string) =>
    audit.record('key.exported', chain.userId, { outcome: 'refused', clientId: chain.clientId, reason });
  try {
    const record = await ctx.mfaStore.load(chain.userId);
    if (!record)
      throw new HttpError(403, 'EXPORT_NOT_OFFERED', 'Key export is not offered here for this account');
    const { module, value } = factorOf(input);
    const check = module.check!;
    if (!exportFactorsOf(record).includes(check.field)) {
      throw new HttpError(400, 'MFA_FACTOR_NOT_SET_UP', `This account has no ${check.auditName} factor`);
    }
    // Under the attempt limits of `/api/mfa/factor`, audited `mfa.factor` as there.
    const share = await typedShare(ctx, chainCaller(ctx, chain), module, value, address);
    const coreKitKey = await combineShares(record.serviceShare, share);
    if (secp256k1PublicKey(coreKitKey) !== record.publicKey) {
      // A right factor whose share rebuilds another key: the record is damaged, not the user's guess.
      throw new HttpError(500, 'INTERNAL_ERROR', 'The shares do not rebuild this account’s key');
    }
    await audit.record('key.exported', chain.userId, {
      outcome: 'success',
      clientId: chain.clientId,
      factor: check.auditName,
    });
    return getAppScopedKey(coreKitKey, chain.clientId);
  } catch (err) {
    await refused(err instanceof Error ? err.message : 'refused');
    throw err;
  }
}
