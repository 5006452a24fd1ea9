import {
  isCaipAccountId,
  isCaipChainId,
  isCaipNamespace,
  isCaipReference,
  isPlainObject,
  parseCaipAccountId,
  parseCaipChainId,
} from '@metamask/utils';
import { own } from './own.ts';
import type { CaipAccountId, ScopeObject, ScopeString } from './types.ts';

/** A requested scope after flattening and merging: methods, notifications, accounts (CAIP-10). */
export type NormalizedScope = {
  methods: string[];
  notifications: string[];
  accounts: CaipAccountId[];
};

export type DroppedScope = { scope: ScopeString; reason: string };

const SCOPE_MEMBERS = new Set(['references', 'methods', 'notifications', 'accounts']);

/** The namespace-only scope that needs no references. */
export const WALLET_NAMESPACE = 'wallet';

/**
 * Why a scope is invalid per CAIP-217 as MetaMask reads it, or `undefined` when it is valid: the key
 * must be a namespace or a CAIP-2 chain id; `methods` and `notifications` are required; `references`
 * only on a namespace key (which needs them, except `wallet`); no other members; accounts CAIP-10.
 */
export function invalidScopeReason(key: string, scope: unknown): string | undefined {
  const isChain = isCaipChainId(key);
  if (!isChain && !isCaipNamespace(key)) return 'scope key is neither a CAIP-2 chain id nor a namespace';
  if (!isPlainObject(scope)) return 'scope is not an object';
  const extra = Object.keys(scope).filter((member) => !SCOPE_MEMBERS.has(member));
  if (extra.length > 0) return `unsupported members: ${extra.join(', ')}`;
  if (!Array.isArray(scope.methods)) return 'methods is missing';
  if (!Array.isArray(scope.notifications)) return 'notifications is missing';
  const references = scope.references;
  if (isChain && references !== undefined) return 'references on a key that already names a chain';
  if (!isChain && key !== WALLET_NAMESPACE && (!Array.isArray(references) || references.length === 0)) {
    return 'namespace key without references';
  }
  if (Array.isArray(references) && !references.every((ref) => isCaipReference(ref))) {
    return 'invalid chain reference';
  }
  if (scope.accounts !== undefined) {
    if (!Array.isArray(scope.accounts) || !scope.accounts.every((account) => isCaipAccountId(account))) {
      return 'invalid CAIP-10 account id';
    }
  }
  return undefined;
}

function union<T>(a: T[], b: T[]): T[] {
  return [...new Set([...a, ...b])];
}

function mergeInto(target: Record<ScopeString, NormalizedScope>, key: ScopeString, scope: NormalizedScope) {
  const existing = own(target, key);
  target[key] = existing
    ? {
        methods: union(existing.methods, scope.methods),
        notifications: union(existing.notifications, scope.notifications),
        accounts: union(existing.accounts, scope.accounts),
      }
    : { methods: [...scope.methods], notifications: [...scope.notifications], accounts: [...scope.accounts] };
}

/**
 * Validates, flattens and merges one or more scope maps (e.g. requiredScopes then optionalScopes):
 * invalid scopes are dropped (reported in `dropped`), `eip155` + `references: ["1","10"]` becomes
 * `eip155:1` and `eip155:10`, and scopes with the same key are merged (union of methods,
 * notifications and accounts). Required scopes are treated like optional ones.
 */
export function normalizeScopes(...scopeMaps: (Record<ScopeString, ScopeObject> | undefined)[]): {
  scopes: Record<ScopeString, NormalizedScope>;
  dropped: DroppedScope[];
} {
  const scopes: Record<ScopeString, NormalizedScope> = {};
  const dropped: DroppedScope[] = [];
  for (const map of scopeMaps) {
    if (!map) continue;
    for (const [key, scope] of Object.entries(map)) {
      const reason = invalidScopeReason(key, scope);
      if (reason) {
        dropped.push({ scope: key, reason });
        continue;
      }
      const normalized: NormalizedScope = {
        methods: [...scope.methods],
        notifications: [...scope.notifications],
        accounts: (scope.accounts ?? []) as CaipAccountId[],
      };
      if (scope.references && !isCaipChainId(key)) {
        for (const reference of scope.references) mergeInto(scopes, `${key}:${reference}`, normalized);
      } else {
        mergeInto(scopes, key, normalized);
      }
    }
  }
  return { scopes, dropped };
}

/**
 * The namespace whose accounts a scope carries: `eip155` for `eip155:1` and for `wallet:eip155`,
 * none for `wallet`.
 */
export function accountNamespaceOf(scope: ScopeString): string | undefined {
  if (!isCaipChainId(scope)) return undefined;
  const { namespace, reference } = parseCaipChainId(scope);
  if (namespace === WALLET_NAMESPACE) return isCaipNamespace(reference) ? reference : undefined;
  return namespace;
}

/** Compares addresses the way their namespace does: EVM addresses case-insensitively. */
export function sameAddress(namespace: string, a: string, b: string): boolean {
  return namespace === 'eip155' ? a.toLowerCase() === b.toLowerCase() : a === b;
}

/** The bare address of a CAIP-10 account id, with its namespace. */
export function addressOf(account: CaipAccountId): { namespace: string; address: string } {
  const { address, chain } = parseCaipAccountId(account);
  const namespace =
    chain.namespace === WALLET_NAMESPACE && isCaipNamespace(chain.reference)
      ? chain.reference
      : chain.namespace;
  return { namespace, address };
}
