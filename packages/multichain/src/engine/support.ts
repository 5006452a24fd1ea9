import type { NormalizedScope } from '../caip/normalize.ts';
import { own } from '../caip/own.ts';
import type { ScopeString } from '../caip/types.ts';
import type { SupportedScopes } from './types.ts';

/** What the wallet can grant in one scope: every method and notification it supports there. */
export type GrantableScope = { methods: string[]; notifications: string[] };

/** A requested scope left out of the grant, and why. */
export type UnsupportedScope = { scope: ScopeString; reason: string };

/** Requested methods and notifications the wallet does not support, dropped from a granted scope. */
export type DroppedMembers = { scope: ScopeString; methods: string[]; notifications: string[] };

export type SupportCheck = {
  /** The scopes the wallet can grant, in request order, each with everything it supports there. */
  grantable: Map<ScopeString, GrantableScope>;
  /** Scopes dropped whole: the chain is not supported, or nothing the scope asks for is. */
  unsupported: UnsupportedScope[];
  /** Unsupported methods and notifications of the scopes that stay. */
  droppedMembers: DroppedMembers[];
};

/**
 * Checks requested scopes against what the wallet supports (the `getSupportedScopes` hook):
 * unsupported chains are dropped; so are the methods and notifications the wallet does not support,
 * and a scope that asked for methods or notifications of which none is supported is dropped whole.
 * A scope that asks for no methods and no notifications (`wallet`, or a dapp that takes whatever the
 * wallet offers) stays. What stays is granted with every method and notification the wallet
 * supports there, as MetaMask fills its session scopes.
 */
export function checkSupport(
  requested: Readonly<Record<ScopeString, NormalizedScope>>,
  supported: SupportedScopes,
): SupportCheck {
  const grantable = new Map<ScopeString, GrantableScope>();
  const unsupported: UnsupportedScope[] = [];
  const droppedMembers: DroppedMembers[] = [];
  for (const [scope, asked] of Object.entries(requested)) {
    const offered = own(supported, scope);
    if (!offered) {
      unsupported.push({ scope, reason: 'the wallet does not support this chain' });
      continue;
    }
    const methods = asked.methods.filter((method) => !offered.methods.includes(method));
    const notifications = asked.notifications.filter((name) => !offered.notifications.includes(name));
    const askedFor = asked.methods.length + asked.notifications.length;
    if (askedFor > 0 && methods.length + notifications.length === askedFor) {
      unsupported.push({ scope, reason: 'none of its methods or notifications is supported' });
      continue;
    }
    if (methods.length + notifications.length > 0) droppedMembers.push({ scope, methods, notifications });
    grantable.set(scope, { methods: [...offered.methods], notifications: [...offered.notifications] });
  }
  return { grantable, unsupported, droppedMembers };
}
