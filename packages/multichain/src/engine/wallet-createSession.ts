import type { CaipAccountId } from '@metamask/utils';
import { scopesNotSupportedError, userRejectedError } from '../caip/errors.ts';
import { accountNamespaceOf, addressOf, normalizeScopes, sameAddress } from '../caip/normalize.ts';
import type { Session, SessionScopes } from '../caip/types.ts';
import { assertCreateSessionParams, filterSessionProperties } from '../caip/validate.ts';
import type { MultichainHooks, SessionHooks, SupportedScopes } from './types.ts';

export type WalletCreateSessionParameters = {
  origin: string;
  params: unknown;
  /** Session property keys the wallet knows; others are dropped. */
  knownSessionProperties: readonly string[];
  /** Aborts when the requesting connection closes. */
  signal?: AbortSignal;
};
export type WalletCreateSessionReturnType = Required<Session>;

/**
 * wallet_createSession (CAIP-25), as MetaMask behaves: validate (-32602 with paths), drop invalid
 * scopes, flatten references, merge same-key scopes with required treated as optional, drop what
 * the wallet does not support (5100 when nothing is left), ask the person (4001 on rejection) and
 * store the approved session for the origin, replacing any earlier one.
 */
export async function walletCreateSession(
  { origin, params, knownSessionProperties, signal }: WalletCreateSessionParameters,
  hooks: Pick<MultichainHooks, 'getSupportedScopes' | 'getAccounts' | 'approve'> &
    Pick<SessionHooks, 'setSession' | 'endSessionWork'>,
): Promise<WalletCreateSessionReturnType> {
  const { requiredScopes, optionalScopes, sessionProperties } = assertCreateSessionParams(params);
  const properties = filterSessionProperties(sessionProperties, knownSessionProperties);
  const { scopes: requested } = normalizeScopes(requiredScopes, optionalScopes);

  const supported = hooks.getSupportedScopes();
  const offered: SupportedScopes = {};
  const requestedAccounts: CaipAccountId[] = [];
  for (const [scope, value] of Object.entries(requested)) {
    const grantable = supported[scope];
    if (!grantable) continue;
    offered[scope] = { methods: [...grantable.methods], notifications: [...grantable.notifications] };
    requestedAccounts.push(...value.accounts);
  }
  if (Object.keys(offered).length === 0) throw scopesNotSupportedError();

  const accounts: Record<string, string[]> = {};
  const preselected: Record<string, string[]> = {};
  for (const scope of Object.keys(offered)) {
    const namespace = accountNamespaceOf(scope);
    if (!namespace || accounts[namespace]) continue;
    const held = hooks.getAccounts(namespace);
    accounts[namespace] = held;
    preselected[namespace] = held.filter((address) =>
      requestedAccounts.some((account) => {
        const requestedAddress = addressOf(account);
        return (
          requestedAddress.namespace === namespace &&
          sameAddress(namespace, requestedAddress.address, address)
        );
      }),
    );
  }

  const decision = await hooks.approve(
    { origin, scopes: offered, accounts, preselected, sessionProperties: properties },
    { signal: signal ?? new AbortController().signal },
  );
  if (!decision.approved) throw userRejectedError();
  const approvedScopes = (decision.scopes ?? Object.keys(offered)).filter((scope) => offered[scope]);
  if (approvedScopes.length === 0) throw userRejectedError();

  const sessionScopes: SessionScopes = {};
  for (const scope of approvedScopes) {
    const namespace = accountNamespaceOf(scope);
    const chosen = namespace
      ? (accounts[namespace] ?? []).filter((held) =>
          (decision.accounts[namespace] ?? []).some((picked) => sameAddress(namespace, picked, held)),
        )
      : [];
    sessionScopes[scope] = {
      methods: offered[scope].methods,
      notifications: offered[scope].notifications,
      accounts: chosen.map((address) => `${scope}:${address}` as CaipAccountId),
    };
  }
  const session = { sessionScopes, sessionProperties: properties };
  hooks.endSessionWork(origin);
  await hooks.setSession(origin, session);
  return session;
}
