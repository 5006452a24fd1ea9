export { assertAccessible } from './accessibility.ts';
export { CHROMIUM_ARGS, CHROMIUM_PATH, launchChromium } from './browser.ts';
export { usageByMethod } from './gateway.ts';
export {
  type FreshDatabase,
  freePort,
  freshDatabase,
  type LocalPgBouncer,
  type LocalRedisCluster,
  type LocalRedisSentinel,
  localBinary,
  startPgBouncer,
  startRedisCluster,
  startRedisSentinel,
  terminateConnections,
  waitFor,
} from './local-servers.ts';
export { assertPublicApi, type PublicApi, readPublicApi } from './public-api.ts';
export { serviceUrl, tempDir } from './services.ts';
export { unsignedTransfer, waitForSignature } from './solana.ts';
