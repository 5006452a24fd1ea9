import { unauthorizedError } from '../caip/errors.ts';
import { addressOf } from '../caip/normalize.ts';
import { own } from '../caip/own.ts';
import type { Json } from '../caip/types.ts';
import { assertInvokeMethodParams } from '../caip/validate.ts';
import type { InvokeContext, MultichainHooks, SessionHooks } from './types.ts';

export type WalletInvokeMethodParameters = {
  origin: string;
  params: unknown;
  notify: InvokeContext['notify'];
  signal: AbortSignal;
};
export type WalletInvokeMethodReturnType = Json;

/**
 * wallet_invokeMethod (CAIP-27): runs `request` on `scope` when the origin's session authorises both
 * (else 4100). The invoked method's result is returned raw; its errors become top-level errors.
 */
export async function walletInvokeMethod(
  { origin, params, notify, signal }: WalletInvokeMethodParameters,
  hooks: Pick<MultichainHooks, 'invoke'> & Pick<SessionHooks, 'getSession'>,
): Promise<WalletInvokeMethodReturnType> {
  const { scope, request } = assertInvokeMethodParams(params);
  const session = await hooks.getSession(origin);
  const granted = own(session?.sessionScopes, scope);
  if (!granted?.methods.includes(request.method)) throw unauthorizedError();
  const accounts = granted.accounts.map((account) => addressOf(account).address);
  return hooks.invoke(scope, request, { origin, accounts, notify, signal });
}
