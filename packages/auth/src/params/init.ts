// The init parameters: `new Auth(initParams)`.
import { type Infer, optional, refine } from '@metamask/superstruct';
import { chainConfig } from './chain-config.ts';
import type { MigrationChange } from './changes.ts';
import { sessionTime, url } from './fields.ts';
import { loginConfig } from './login-config.ts';
import { mfaSettings } from './mfa-settings.ts';
import { exact, failAt, flag, nonEmptyText, oneOf, rule } from './rules.ts';
import { BUILD_ENVS, NETWORKS } from './values.ts';
import { whiteLabel } from './white-label.ts';

/** A CAIP-2 namespace. */
const NAMESPACE = /^[-a-z0-9]{3,8}$/;

/** CAIP-2 namespace: `eip155`, `solana`, or any other chain family's namespace. */
const chainNamespace = rule<string>(
  (v) =>
    (typeof v === 'string' && NAMESPACE.test(v)) ||
    'eip155, solana or another CAIP-2 namespace ([-a-z0-9]{3,8})',
);

/** init's chainConfig, whose namespace must be chainNamespace when both are given. */
const initChainConfig = refine(chainConfig, 'sameNamespace', (config, ctx) => {
  const named: unknown = ctx.branch[ctx.branch.length - 2].chainNamespace;
  return (
    named === undefined ||
    config.chainNamespace === named ||
    failAt(
      [...ctx.path, 'chainNamespace'],
      `the same namespace as chainNamespace (${named})`,
      config.chainNamespace,
    )
  );
});

/** The init parameters' schema; v6 conversions are recorded in `changes`. */
export function initParams(changes: MigrationChange[]) {
  return exact(
    {
      clientId: nonEmptyText,
      network: oneOf(NETWORKS),
      buildEnv: optional(oneOf(BUILD_ENVS)),
      sdkUrl: optional(url('web')),
      redirectUrl: optional(url('redirect')),
      whiteLabel: optional(whiteLabel(changes)),
      loginConfig: optional(loginConfig),
      useCoreKitKey: optional(flag),
      chainNamespace: optional(chainNamespace),
      /** The chain `auth.provider` serves after login (beyond the auth spec: Web3Auth's chainConfig). */
      chainConfig: optional(initChainConfig),
      mfaSettings: optional(mfaSettings),
      /** Seconds; default 86400, no cap (the service may set one: `maxSessionTime`). */
      sessionTime: optional(sessionTime),
    },
    { name: 'initParams' },
  );
}

export type AuthInitParams = Infer<ReturnType<typeof initParams>>;
