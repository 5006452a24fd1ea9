import type { BuildEnv, Network } from './types.ts';

/**
 * Auth service address per build environment and network. `sdkUrl` in the init parameters
 * overrides it (a self-hosted service, or `portico dev`'s `auth.sdkUrl`).
 *
 * | buildEnv   | mainnet, aqua, cyan, sapphire_mainnet | testnet, sapphire_devnet               |
 * |------------|---------------------------------------|----------------------------------------|
 * | production | https://auth.portico.dev              | https://devnet.auth.portico.dev        |
 * | staging    | https://staging.auth.portico.dev      | https://staging-devnet.auth.portico.dev |
 * | testing    | http://127.0.0.1:8790                 | http://127.0.0.1:8790                  |
 */
export const SDK_URLS: Record<BuildEnv, Record<'mainnet' | 'devnet', string>> = {
  production: { mainnet: 'https://auth.portico.dev', devnet: 'https://devnet.auth.portico.dev' },
  staging: { mainnet: 'https://staging.auth.portico.dev', devnet: 'https://staging-devnet.auth.portico.dev' },
  testing: { mainnet: 'http://127.0.0.1:8790', devnet: 'http://127.0.0.1:8790' },
};

const DEVNETS: readonly Network[] = ['testnet', 'sapphire_devnet'];

/** The login page base for the parameters: `sdkUrl` when given, else the table entry. */
export function resolveSdkUrl(params: { buildEnv?: BuildEnv; network: Network; sdkUrl?: string }): string {
  const base =
    params.sdkUrl ??
    SDK_URLS[params.buildEnv ?? 'production'][DEVNETS.includes(params.network) ? 'devnet' : 'mainnet'];
  return base.replace(/\/+$/, '');
}
