import { scopesNotSupportedError, userRejectedError } from '../caip/errors.ts';
import { accountNamespaceOf, addressOf, normalizeScopes, sameAddress } from '../caip/normalize.ts';
import { own } from '../caip/own.ts';
import type { CaipAccountId, Session, SessionScopes } from '../caip/types.ts';
import { assertCreateSessionParams, filterSessionProperties } from '../caip/validate.ts';
import { checkSupport } from './support.ts';
import type { MultichainHooks, SessionHooks, SupportedScopes } from './types.ts';

export type WalletCreateSessionParameters = {
  origin: string;
  params: unknown;
  /** Session property keys the wallet knows; others are dropped. */
  knownSessionProperties: readonly string[];
  /** Aborts when the requesting connection closes. */
  signal?: AbortSignal;
  /** Told what was dropped as unsupported (one line each). */
  log?: (line: string) => void;
  /**
   * Add the approved scopes to the origin's session instead of replacing it (`portico_requestScopes`,
   * what EIP-1193's eth_requestAccounts and the Wallet Standard's connect do): scopes not asked for
   * stay as they are, so connecting one namespace never drops another.
   */
  merge?: boolean;
};
export type WalletCreateSessionReturnType = Required<Session>;

/**
 * wallet_createSession (CAIP-25), as MetaMask behaves: validate (-32602 with paths), drop invalid
 * scopes, flatten references, merge same-key scopes with required treated as optional, drop what
 * the wallet does not support — chains, methods, notifications, and scopes none of whose methods and
 * notifications is supported (5100 when nothing is left) — ask the person (4001 on rejection) and
 * store the approved session for the origin, replacing any earlier one.
 */
export async function walletCreateSession(
  { origin, params, knownSessionProperties, signal, log, merge }: WalletCreateSessionParameters,
  hooks: Pick<MultichainHooks, 'getSupportedScopes' | 'getAccounts' | 'approve'> &
    Pick<SessionHooks, 'setSession' | 'endSessionWork'> &
    Partial<Pick<SessionHooks, 'getSession'>>,
): Promise<WalletCreateSessionReturnType> {
  const { requiredScopes, optionalScopes, sessionProperties } = assertCreateSessionParams(params);
  const properties = filterSessionProperties(sessionProperties, knownSessionProperties);
  const { scopes: requested } = normalizeScopes(requiredScopes, optionalScopes);

  const { grantable, unsupported, droppedMembers } = checkSupport(requested, hooks.getSupportedScopes());
  for (const { scope, reason } of unsupported)
    log?.(`multichain: ${origin} asked for ${scope}: dropped, ${reason}`);
  for (const { scope, methods, notifications } of droppedMembers) {
    log?.(
      `multichain: ${origin} asked for unsupported ${[...methods, ...notifications].join(', ')} on ${scope}`,
    );
  }
  if (grantable.size === 0) throw scopesNotSupportedError();

  const requestedAccounts: CaipAccountId[] = [...grantable.keys()].flatMap(
    (scope) => requested[scope].accounts,
  );
  const offered: SupportedScopes = Object.fromEntries(grantable);
  const accounts: Record<string, string[]> = {};
  const preselected: Record<string, string[]> = {};
  for (const scope of grantable.keys()) {
    const namespace = accountNamespaceOf(scope);
    if (!namespace || own(accounts, namespace)) continue;
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

  const keeps = merge
    ? Object.keys((await hooks.getSession?.(origin))?.sessionScopes ?? {}).filter(
        (scope) => !grantable.has(scope),
      )
    : undefined;
  const decision = await hooks.approve(
    {
      origin,
      scopes: offered,
      accounts,
      preselected,
      sessionProperties: properties,
      ...(keeps ? { keeps } : {}),
    },
    { signal: signal ?? new AbortController().signal },
  );
  if (!decision.approved) throw userRejectedError();
  // The decision may come from an HTTP API (the reference wallet's approval page): only scopes that
  // were offered count, looked up in the Map, never on a plain object.
  const approvedScopes = (decision.scopes ?? [...grantable.keys()]).filter(
    (scope, index, all) => grantable.has(scope) && all.indexOf(scope) === index,
  );
  if (approvedScopes.length === 0) throw userRejectedError();
  // The wallet may have changed while the person decided (a chain removed, accounts replaced): grant
  // only what it still supports and holds.
  const supportedNow = hooks.getSupportedScopes();
  const grantedScopes = approvedScopes.filter((scope) => own(supportedNow, scope) !== undefined);
  if (grantedScopes.length === 0) throw scopesNotSupportedError();
  const heldNow = new Map<string, string[]>();
  const held = (namespace: string) => {
    if (!heldNow.has(namespace)) heldNow.set(namespace, hooks.getAccounts(namespace));
    return heldNow.get(namespace)!;
  };

  const sessionScopes: SessionScopes = {};
  for (const scope of grantedScopes) {
    const namespace = accountNamespaceOf(scope);
    const picked = namespace ? (own(decision.accounts, namespace) ?? []) : [];
    const chosen = namespace
      ? held(namespace).filter((address) => picked.some((choice) => sameAddress(namespace, choice, address)))
      : [];
    const { methods, notifications } = grantable.get(scope)!;
    sessionScopes[scope] = {
      methods,
      notifications,
      accounts: chosen.map((address) => `${scope}:${address}` as CaipAccountId),
    };
  }
  if (merge) {
    // The other scopes' work (subscriptions) goes on: only the asked-for scopes change.
    const existing = await hooks.getSession?.(origin);
    const merged = {
      sessionScopes: { ...existing?.sessionScopes, ...sessionScopes },
      sessionProperties: { ...existing?.sessionProperties, ...properties },
    };
    await hooks.setSession(origin, merged);
    return merged;
  }
  const session = { sessionScopes, sessionProperties: properties };
  hooks.endSessionWork(origin);
  await hooks.setSession(origin, session);
  return session;
}
