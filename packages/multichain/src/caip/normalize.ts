import type { Struct } from '@metamask/superstruct';
import {
  isCaipAccountId,
  isCaipChainId,
  isCaipNamespace,
  isCaipReference,
  parseCaipAccountId,
  parseCaipChainId,
} from '@metamask/utils';
import { own } from './own.ts';
import { field, fields, firstFailure, optional, rule } from './schema.ts';
import type { CaipAccountId, ScopeObject, ScopeString } from './types.ts';

/** A requested scope after flattening and merging: methods, notifications, accounts (CAIP-10). */
export type NormalizedScope = {
  methods: string[];
  notifications: string[];
  accounts: CaipAccountId[];
};

export type DroppedScope = { scope: ScopeString; reason: string };

/** The namespace-only scope that needs no references. */
export const WALLET_NAMESPACE = 'wallet';

/** A scope object that passed `caip217Scope`: its accounts are CAIP-10 ids. */
type ValidScope = Omit<ScopeObject, 'accounts'> & { accounts?: CaipAccountId[] };

const list = <T extends string>(message: string, test: (item: unknown) => item is T) =>
  field<T[]>(message, (value) => Array.isArray(value) && value.every(test));

/** A required list of names: `methods`, `notifications`. */
const names = (member: string) =>
  rule<string[]>((value) =>
    !Array.isArray(value)
      ? `${member} is missing`
      : value.every((item) => typeof item === 'string') || `${member} must be strings`,
  );

/**
 * A scope object valid per CAIP-217 under `key`, as MetaMask reads it: the key must be a namespace
 * or a CAIP-2 chain id; `methods` and `notifications` are required; `references` only on a
 * namespace key (which needs them, except `wallet`); no other members; accounts CAIP-10. The
 * first failure's message is the reason the scope is dropped.
 */
function caip217Scope(key: string): Struct<ValidScope, unknown> {
  const isChain = isCaipChainId(key);
  const chainReferences = list('invalid chain reference', isCaipReference);
  const shape = {
    methods: names('methods'),
    notifications: names('notifications'),
    references: isChain
      ? field<undefined>('references on a key that already names a chain', (value) => value === undefined)
      : key === WALLET_NAMESPACE
        ? optional(chainReferences)
        : rule<string[]>((value) =>
            !Array.isArray(value) || value.length === 0
              ? 'namespace key without references'
              : value.every(isCaipReference) || 'invalid chain reference',
          ),
    accounts: optional(list('invalid CAIP-10 account id', isCaipAccountId)),
  };
  if (!isChain && !isCaipNamespace(key))
    return rule<ValidScope>(() => 'scope key is neither a CAIP-2 chain id nor a namespace');
  return fields(shape, {
    notObject: 'scope is not an object',
    onlyThese: (extra) => `unsupported members: ${extra.join(', ')}`,
  });
}

/** Why a scope is invalid per CAIP-217 as MetaMask reads it (see `caip217Scope`), or `undefined` when it is valid. */
export function invalidScopeReason(key: string, scope: unknown): string | undefined {
  const checked = firstFailure(scope, caip217Scope(key));
  return 'reason' in checked ? checked.reason : undefined;
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
export function normalizeScopes(...scopeMaps: (Readonly<Record<ScopeString, unknown>> | undefined)[]): {
  scopes: Record<ScopeString, NormalizedScope>;
  dropped: DroppedScope[];
} {
  const scopes: Record<ScopeString, NormalizedScope> = {};
  const dropped: DroppedScope[] = [];
  for (const map of scopeMaps) {
    if (!map) continue;
    for (const [key, requested] of Object.entries(map)) {
      const checked = firstFailure(requested, caip217Scope(key));
      if ('reason' in checked) {
        dropped.push({ scope: key, reason: checked.reason });
        continue;
      }
      const scope = checked.value;
      const normalized: NormalizedScope = {
        methods: [...scope.methods],
        notifications: [...scope.notifications],
        accounts: scope.accounts ?? [],
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
