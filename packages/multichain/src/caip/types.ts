// JSON, CAIP-10 and JSON-RPC error types are declared here with the shapes of @metamask/utils' own,
// so the published declarations depend on no other package's types (those of @metamask/utils 11
// fail a consumer's strict check under TypeScript's esnext lib).

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [prop: string]: Json };

/** A CAIP-10 account id, `namespace:reference:address`. */
export type CaipAccountId = `${string}:${string}:${string}`;

/** The error member of a JSON-RPC response. */
export type JsonRpcError = { code: number; message: string; data?: Json; stack?: string };

/** A scope key: a namespace (`eip155`, `wallet`) or a CAIP-2 chain id (`eip155:1`, `wallet:eip155`). */
export type ScopeString = string;

/** A CAIP-217 scope object as a dapp sends it in wallet_createSession. */
export type ScopeObject = {
  references?: string[];
  methods: string[];
  notifications: string[];
  accounts?: string[];
};

/** A scope as the wallet returns it: always methods, notifications and CAIP-10 accounts. */
export type SessionScope = {
  methods: string[];
  notifications: string[];
  accounts: CaipAccountId[];
};

export type SessionScopes = Record<ScopeString, SessionScope>;

export type SessionProperties = Record<string, Json>;

/** The params of wallet_createSession (CAIP-25, MetaMask's shape). */
export type CreateSessionParams = {
  requiredScopes?: Record<ScopeString, ScopeObject>;
  optionalScopes?: Record<ScopeString, ScopeObject>;
  sessionProperties?: SessionProperties;
};

/** The result of wallet_createSession and wallet_getSession. */
export type Session = {
  sessionScopes: SessionScopes;
  sessionProperties?: SessionProperties;
};

export type InvokeMethodParams = {
  scope: ScopeString;
  request: { method: string; params?: Json };
};

export type RevokeSessionParams = { scopes?: ScopeString[] };

/** A JSON-RPC notification the wallet sends to the dapp. */
export type WalletNotification =
  | { jsonrpc: '2.0'; method: 'wallet_sessionChanged'; params: { sessionScopes: SessionScopes } }
  | {
      jsonrpc: '2.0';
      method: 'wallet_notify';
      params: { scope: ScopeString; notification: { method: string; params: Json } };
    };
