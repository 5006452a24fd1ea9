import { assertRevokeSessionParams } from '../caip/validate.ts';
import type { SessionHooks } from './types.ts';

export type WalletRevokeSessionParameters = { origin: string; params: unknown };
export type WalletRevokeSessionReturnType = true;

/**
 * wallet_revokeSession (CAIP-285): ends the origin's session (or only `scopes`, when given) and sends
 * wallet_sessionChanged with what is left (`{}` after a full revoke). Returns true, also when there
 * was no session.
 */
export async function walletRevokeSession(
  { origin, params }: WalletRevokeSessionParameters,
  hooks: SessionHooks,
): Promise<WalletRevokeSessionReturnType> {
  const { scopes } = assertRevokeSessionParams(params);
  const session = await hooks.getSession(origin);
  if (scopes && scopes.length > 0 && session) {
    const remaining = Object.fromEntries(
      Object.entries(session.sessionScopes).filter(([scope]) => !scopes.includes(scope)),
    );
    const left = Object.keys(remaining).length;
    if (left === Object.keys(session.sessionScopes).length) return true;
    if (left > 0) {
      await hooks.setSession(origin, { ...session, sessionScopes: remaining });
      hooks.emitSessionChanged(origin, remaining);
      return true;
    }
  }
  await hooks.deleteSession(origin);
  hooks.endSessionWork(origin);
  hooks.emitSessionChanged(origin, {});
  return true;
}
