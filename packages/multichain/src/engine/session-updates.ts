import { accountNamespaceOf, addressOf, sameAddress, WALLET_NAMESPACE } from '../caip/normalize.ts';
import { own } from '../caip/own.ts';
import type { CaipAccountId, SessionScopes } from '../caip/types.ts';
import type { SupportedScopes } from './types.ts';

// Changes the wallet makes to a session's scopes. Each takes the scopes and returns updated ones
// (a copy); the engine stores them and sends wallet_sessionChanged when they differ.

/** Grants `address` in every scope of its namespace (`eip155:1`, `wallet:eip155`, …). */
export function withAccount(scopes: SessionScopes, namespace: string, address: string): SessionScopes {
  return mapScopes(scopes, (scope, value) => {
    if (accountNamespaceOf(scope) !== namespace) return value;
    if (value.accounts.some((account) => sameAddress(namespace, addressOf(account).address, address)))
      return value;
    return { ...value, accounts: [...value.accounts, `${scope}:${address}` as CaipAccountId] };
  });
}

/** Drops the accounts of `namespace` for which `removed(address)` holds. */
export function withoutAccounts(
  scopes: SessionScopes,
  namespace: string,
  removed: (address: string) => boolean,
): SessionScopes {
  return mapScopes(scopes, (_scope, value) => ({
    ...value,
    accounts: value.accounts.filter((account) => {
      const held = addressOf(account);
      return held.namespace !== namespace || !removed(held.address);
    }),
  }));
}

/** Drops one scope. */
export function withoutScope(scopes: SessionScopes, removed: string): SessionScopes {
  return Object.fromEntries(Object.entries(scopes).filter(([scope]) => scope !== removed));
}

/** Keeps the scopes the wallet supports and, in them, the accounts it holds. */
export function withSupportedOnly(
  scopes: SessionScopes,
  supported: SupportedScopes,
  held: (namespace: string) => string[],
): SessionScopes {
  const kept = Object.entries(scopes).filter(([scope]) => own(supported, scope) !== undefined);
  return Object.fromEntries(
    kept.map(([scope, value]) => [
      scope,
      {
        ...value,
        accounts: value.accounts.filter((account) => {
          const { namespace, address } = addressOf(account);
          return held(namespace).some((mine) => sameAddress(namespace, mine, address));
        }),
      },
    ]),
  );
}

/**
 * Whether a wallet-side change ends the session, as MetaMask revokes the permission: no scope is
 * left, the change removed the last chain scope (leaving only `wallet` / `wallet:<namespace>`), or
 * it removed the last account.
 */
export function endsSession(before: SessionScopes, after: SessionScopes): boolean {
  if (Object.keys(after).length === 0) return true;
  if (chainScopeCount(before) > 0 && chainScopeCount(after) === 0) return true;
  return hasAccounts(before) && !hasAccounts(after);
}

function chainScopeCount(scopes: SessionScopes): number {
  return Object.keys(scopes).filter((scope) => !isWalletScope(scope)).length;
}

function isWalletScope(scope: string): boolean {
  return scope === WALLET_NAMESPACE || scope.startsWith(`${WALLET_NAMESPACE}:`);
}

function hasAccounts(scopes: SessionScopes): boolean {
  return Object.values(scopes).some((value) => value.accounts.length > 0);
}

function mapScopes(
  scopes: SessionScopes,
  change: (scope: string, value: SessionScopes[string]) => SessionScopes[string],
): SessionScopes {
  return Object.fromEntries(Object.entries(scopes).map(([scope, value]) => [scope, change(scope, value)]));
}
