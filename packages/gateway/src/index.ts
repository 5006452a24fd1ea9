export { BaseError } from './base-error.ts';
export { MemoryResponseCache } from './cache/memory-response-cache.ts';
export {
  RedisResponseCache,
  type RedisResponseCacheOptions,
} from './cache/redis-response-cache.ts';
export type { CachedReply, ResponseCache } from './cache/response-cache.ts';
export {
  type CacheConfig,
  ConfigError,
  type ExtraSections,
  type GatewayConfig,
  loadConfigFile,
  type NetworkConfig,
  parseConfig,
  type SharedStoresConfig,
  type StoresConfig,
} from './config/config.ts';
export type {
  RedisClusterTarget,
  RedisNode,
  RedisSentinelTarget,
  RedisTarget,
} from './config/redis-target.ts';
// The builders of the config's schema, for sections other parts add to the same file.
export {
  boolean as configBoolean,
  didYouMean,
  field as configField,
  fromEnv as configFromEnv,
  integer as configInteger,
  isRecord,
  list as configList,
  oneOf as configOneOf,
  optional as configOptional,
  optionalString as configOptionalString,
  record as configRecord,
  rootOf as configRootOf,
  section as configSection,
  withDefault as configDefault,
} from './config/schema.ts';
export { nextUtcMidnight, utcDay } from './credits/day.ts';
export type { CreditLedger, DebitResult } from './credits/ledger.ts';
export { MemoryCreditLedger } from './credits/memory-ledger.ts';
export { MemoryRateLimiter, type RateLimiter, type RateResult } from './credits/rate-limiter.ts';
export { RedisCreditLedger, type RedisCreditLedgerOptions } from './credits/redis-credit-ledger.ts';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './credits/redis-rate-limiter.ts';
export { SqliteCreditLedger } from './credits/sqlite-credit-ledger.ts';
export { type Gateway, startGateway } from './gateway.ts';
export { generateApiKey, hashApiKey } from './keys/api-key.ts';
export { KeyInputError } from './keys/key-input-error.ts';
export {
  type ApiKeyRecord,
  type CreateKeyParameters,
  DEFAULT_DAILY_CREDITS,
  DEFAULT_PROJECT,
  type KeyChanges,
  type KeyStore,
} from './keys/key-store.ts';
export { describeKey, type KeyView } from './keys/key-view.ts';
export { PostgresKeyStore, type PostgresKeyStoreOptions } from './keys/postgres-key-store.ts';
export { SqliteKeyStore } from './keys/sqlite-key-store.ts';
export { EVM_METHOD_RULES, EVM_PASSTHROUGH_METHODS } from './methods/evm/methods.ts';
export { decodeRevertReason } from './methods/evm/revert.ts';
export { type Readiness, readiness } from './observability/health.ts';
export { GatewayMetrics, type RpcItemEvent } from './observability/metrics.ts';
export {
  type GatewayStores,
  openEmbeddedStores,
  openSharedStores,
  type SharedStoresOptions,
} from './open-stores.ts';
export { portNamed, type ServedPart, type ServeGatewayOptions, serveGateway } from './process/serve.ts';
export { onShutdown, SHUTDOWN_MESSAGE } from './process/shutdown.ts';
export { startupWarnings } from './process/warnings.ts';
export { isWorker, printsBanner, READY_MESSAGE, reportReady, superviseWorkers } from './process/workers.ts';
export {
  GATEWAY_ERRORS,
  GatewayError,
  type StoreName,
  StoreUnavailableError,
} from './rpc/errors.ts';
export { JsonResult } from './rpc/json-result.ts';
export { type BatchWriter, GroupCommit } from './stores/group-commit.ts';
export { createPostgresPool, migratePostgres, POSTGRES_SCHEMA_VERSION } from './stores/postgres.ts';
export {
  createRedisClient,
  type RedisClientOptions,
  type RedisFailureMode,
  RedisHealth,
} from './stores/redis.ts';
export { openSqlite, type SqliteDatabase } from './stores/sqlite.ts';
export type { AccessEntry, CacheStatus, NetworkKind } from './types.ts';
export {
  PostgresUsageRecorder,
  type PostgresUsageRecorderOptions,
} from './usage/postgres-usage-recorder.ts';
export { SqliteUsageRecorder } from './usage/sqlite-usage-recorder.ts';
export type { UsageRecorder, UsageRow } from './usage/usage-recorder.ts';
