// The browser-safe entry: the dapp client, its transports, CAIP types and validation, and the
// wallet-side engine with its in-memory store. Nothing here reaches a Node built-in; the SQLite and
// PostgreSQL stores and the WebSocket server are in `@portico/multichain/node`.

export { MultichainError, type MultichainErrorKind } from './base-error.ts';
export { announceWalletBridge, IN_PAGE_TARGET_TYPE, type WalletIdentity } from './bridge/announce.ts';
export {
  type BridgeMultichainProvider,
  createWalletBridge,
  type WalletBridge,
  type WalletBridgeOptions,
} from './bridge/bridge.ts';
export { ProviderRpcError } from './bridge/connection.ts';
export type { Eip1193Provider, Eip1193RequestArguments } from './bridge/eip1193.ts';
export type { StandardSolanaWallet, StandardWalletAccount } from './bridge/solana-wallet.ts';
export {
  invalidParamsError,
  MultichainErrorCode,
  type ParamIssue,
  scopesNotSupportedError,
  unauthorizedError,
  userRejectedError,
  type WalletRpcError,
} from './caip/errors.ts';
export {
  accountNamespaceOf,
  addressOf,
  type DroppedScope,
  invalidScopeReason,
  type NormalizedScope,
  normalizeScopes,
  sameAddress,
} from './caip/normalize.ts';
export type {
  CaipAccountId,
  CreateSessionParams,
  InvokeMethodParams,
  Json,
  JsonRpcError,
  RevokeSessionParams,
  ScopeObject,
  ScopeString,
  Session,
  SessionProperties,
  SessionScope,
  SessionScopes,
  WalletNotification,
} from './caip/types.ts';
export {
  assertCreateSessionParams,
  assertInvokeMethodParams,
  assertRevokeSessionParams,
  filterSessionProperties,
} from './caip/validate.ts';
export {
  type CreateMultichainClientOptions,
  createMultichainClient,
  METHODS_AWAITING_APPROVAL,
  type MultichainClient,
  type ReconnectOptions,
} from './client/client.ts';
export { MultichainConnectionError, MultichainRpcError, MultichainTimeoutError } from './client/errors.ts';
export {
  type CreateMultichainEngineOptions,
  createMultichainEngine,
  type EngineConnection,
  type JsonRpcResponse,
  type MultichainEngine,
  REQUEST_SCOPES_METHOD,
  toJsonRpcError,
} from './engine/engine.ts';
export type {
  ApprovalDecision,
  ApprovalRequest,
  InvokeContext,
  InvokeRequest,
  MultichainHooks,
  SupportedScopes,
} from './engine/types.ts';
export { walletCreateSession } from './engine/wallet-createSession.ts';
export { walletGetSession } from './engine/wallet-getSession.ts';
export { walletInvokeMethod } from './engine/wallet-invokeMethod.ts';
export { walletRevokeSession } from './engine/wallet-revokeSession.ts';
export { createMemorySessionStore } from './store/memory.ts';
export type { SessionStore } from './store/types.ts';
export { createInProcessTransport } from './transports/in-process.ts';
export {
  createMultichainApiClientTransport,
  getPorticoTransport,
  type MultichainApiClientTransportOptions,
} from './transports/metamask.ts';
export {
  createWindowPostMessageTransport,
  POST_MESSAGE_CHANNEL,
  type PostMessageTarget,
  serveWindowPostMessage,
} from './transports/post-message.ts';
export type { MultichainTransport } from './transports/types.ts';
export {
  createWebSocketTransport,
  type WebSocketLike,
  type WebSocketTransportOptions,
} from './transports/websocket.ts';
