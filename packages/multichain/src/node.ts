// Node-only parts of @portico/multichain for wallet services: session stores on SQLite and
// PostgreSQL and the dapp-facing WebSocket server. Everything of the main entry is re-exported.
export * from './index.ts';
export { createPostgresSessionStore, createSqliteSessionStore, openSessionStore } from './store/index.ts';
export { type AttachWebSocketServerOptions, attachWebSocketServer } from './transports/websocket-server.ts';
