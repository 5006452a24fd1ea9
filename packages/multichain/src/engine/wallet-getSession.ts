import type { Session } from '../caip/types.ts';
import type { SessionHooks } from './types.ts';

export type WalletGetSessionParameters = { origin: string };
export type WalletGetSessionReturnType = Session;

/** wallet_getSession (CAIP-312): the origin's session, or `{ sessionScopes: {} }` — never an error. */
export async function walletGetSession(
  { origin }: WalletGetSessionParameters,
  hooks: Pick<SessionHooks, 'getSession'>,
): Promise<WalletGetSessionReturnType> {
  const session = await hooks.getSession(origin);
  if (!session) return { sessionScopes: {} };
  return { sessionScopes: session.sessionScopes, sessionProperties: session.sessionProperties ?? {} };
}
