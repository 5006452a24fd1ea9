// The wiring `portico dev` and `portico start` share: the dashboard on the gateway's port, the
// parts started in order (and closed in reverse, also when a later one fails to start), and the
// keys of --config-out that both write.
import { type AuthAdminSource, createDashboardHandler } from '@portico/dashboard';
import type { Gateway } from '@portico/gateway';
import { type Wallet, walletConfigOut } from '@portico/wallet';

/**
 * The gateway's extra handlers: the dashboard at /dashboard/ when it is on. Its Audit page reads
 * the auth service's audit trail through the handler (server-side, with `authAdmin`'s token), for
 * a session signed in with the gateway's `adminToken`.
 */
export function dashboardHandlers(
  enabled: boolean,
  audit: { adminToken?: string; authAdmin?: AuthAdminSource } = {},
) {
  return enabled ? [createDashboardHandler(audit)] : [];
}

/** Parts started one after another; `close` stops them in reverse order. */
export class StartedParts {
  private readonly parts: { close: () => Promise<void> }[] = [];

  add<T extends { close: () => Promise<void> }>(part: T): T {
    this.parts.push(part);
    return part;
  }

  /** Starts one more part; if it fails, the ones started before are closed and the error goes on. */
  async start<T extends { close: () => Promise<void> }>(starting: () => Promise<T>): Promise<T> {
    try {
      return this.add(await starting());
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  readonly close = async (): Promise<void> => {
    for (const part of this.parts.splice(0).reverse()) await part.close().catch(() => {});
  };
}

export type NetworkOut = { baseUrl: string; chainId: string; kind: string; rpcUrl?: string };

/** `networks` of --config-out: each network's base address, and its RPC URL when a key is known. */
export function networksOut(
  gateway: Gateway,
  apiKey: string,
): Record<string, NetworkOut & { rpcUrl: string }>;
export function networksOut(gateway: Gateway, apiKey?: string): Record<string, NetworkOut>;
export function networksOut(gateway: Gateway, apiKey?: string): Record<string, NetworkOut> {
  return Object.fromEntries(
    gateway.networks.map((n) => [
      n.name,
      {
        baseUrl: n.baseUrl,
        chainId: n.chainId,
        ...(apiKey ? { rpcUrl: `${n.baseUrl}/v3/${apiKey}` } : {}),
        kind: n.kind,
      },
    ]),
  );
}

/** The keys of --config-out `portico dev` and `portico start` both write, for the parts that run. */
export function partsConfigOut(
  gateway: Gateway,
  parts: {
    apiKey?: string;
    dashboard: boolean;
    /** The gateway's `publicUrl` (behind a proxy): where a person opens the dashboard. */
    publicUrl?: string;
    auth?: { sdkUrl: string; jwksUrl: string };
    wallet?: Wallet;
  },
) {
  return {
    gatewayUrl: gateway.url,
    networks: networksOut(gateway, parts.apiKey),
    ...(parts.dashboard ? { dashboard: { url: `${parts.publicUrl || gateway.url}/dashboard/` } } : {}),
    ...(parts.auth ? { auth: { sdkUrl: parts.auth.sdkUrl, jwksUrl: parts.auth.jwksUrl } } : {}),
    ...(parts.wallet ? { wallet: walletConfigOut(parts.wallet) } : {}),
  };
}
