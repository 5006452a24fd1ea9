import type { GatewayConfig } from '../config/config.ts';

/** What an operator should know at start about a config that runs but is not what production wants. */
export function startupWarnings(config: GatewayConfig): string[] {
  const warnings: string[] = [];
  if ((config.stores?.kind ?? 'embedded') === 'embedded' && !config.dataDir) {
    warnings.push(
      'warning: no dataDir: API keys and usage live in memory and are lost when the process stops (set dataDir, or stores.kind: shared)',
    );
  }
  if ((config.metrics?.enabled ?? true) && !config.metrics?.requireAdminToken) {
    warnings.push(
      'warning: GET /metrics is open to anyone who can reach the gateway (set metrics.requireAdminToken: true, or metrics.enabled: false)',
    );
  }
  return warnings;
}
