import type { Json, ScopeString, Session, SessionProperties, SessionScopes } from '../caip/types.ts';

/** What the wallet supports: per scope key, every method and notification it answers. */
export type SupportedScopes = Record<ScopeString, { methods: string[]; notifications: string[] }>;

/** What the approval hook is shown. */
export type ApprovalRequest = {
  /** The dapp's origin (e.g. the WebSocket connection's Origin header). */
  origin: string;
  /** The supported scopes the dapp asked for (after normalisation), with what the wallet grants for each. */
  scopes: SupportedScopes;
  /** Per namespace (`eip155`), the addresses the wallet holds that these scopes can carry. */
  accounts: Record<string, string[]>;
  /** Per namespace, the requested addresses the wallet holds: preselect them. */
  preselected: Record<string, string[]>;
  sessionProperties: SessionProperties;
  /**
   * Only for `portico_requestScopes` (adding to the session): the scopes the origin's session
   * already has that stay whatever the answer, so the person sees the request adds to them.
   */
  keeps?: ScopeString[];
};

/** The person's answer: reject, or approve some scopes (default all) with chosen addresses per namespace. */
export type ApprovalDecision =
  | { approved: false }
  | { approved: true; scopes?: ScopeString[]; accounts: Record<string, string[]> };

export type InvokeRequest = { method: string; params?: Json };

export type InvokeContext = {
  origin: string;
  /** The addresses the session authorises in this scope (bare, e.g. `0xf39f…`). */
  accounts: string[];
  /** Sends `wallet_notify { scope, notification }` to the dapp while the session authorises it. */
  notify: (notification: { method: string; params: Json }) => void;
  /** Aborts when the dapp's connection closes or its session is revoked or replaced. */
  signal: AbortSignal;
};

/** Dependencies the handlers receive, as MetaMask's multichain-api-middleware does. */
export type MultichainHooks = {
  /** The scopes the wallet supports now, with all their methods and notifications. */
  getSupportedScopes: () => SupportedScopes;
  /** The addresses the wallet holds in a namespace (`eip155`, `solana`). */
  getAccounts: (namespace: string) => string[];
  /**
   * Shows the request to the person; resolves with their decision (pending requests simply wait).
   * `signal` aborts when the requesting connection closes: drop the request then.
   */
  approve: (request: ApprovalRequest, options: { signal: AbortSignal }) => Promise<ApprovalDecision>;
  /** Runs an authorised method on a chain; throw `{ code, message, data? }` for a JSON-RPC error. */
  invoke: (scope: ScopeString, request: InvokeRequest, context: InvokeContext) => Promise<Json>;
};

/** Session persistence as the handlers see it. */
export type SessionHooks = {
  getSession: (origin: string) => Promise<Session | undefined>;
  setSession: (origin: string, session: Session) => Promise<void>;
  deleteSession: (origin: string) => Promise<boolean>;
  /** Sends wallet_sessionChanged with the full scopes to the origin's connections. */
  emitSessionChanged: (origin: string, sessionScopes: SessionScopes) => void;
  /** Aborts the in-flight work (subscriptions) tied to the origin's session. */
  endSessionWork: (origin: string) => void;
};
