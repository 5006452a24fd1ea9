// `portico dev` in small for the provider tests: real anvil chains and the real Solana dev ledger
// behind a real Portico gateway with an admin token and one API key, plus a fetch that records which
// JSON-RPC methods a provider sent, to compare with what the gateway charged.
import { type Anvil, type SolanaLedger, startAnvil, startSolanaLedger } from '@portico/devchain';
import { type Gateway, parseConfig, startGateway } from '@portico/gateway';
import { usageByMethod } from '@portico/testkit';
import pino from 'pino';

export { waitForSignature } from '@portico/testkit';

export const ADMIN_TOKEN = 'provider-test-admin-token';

export interface ChainStack {
  gateway: Gateway;
  /** anvil per EVM network, by gateway network name. */
  anvils: Record<string, Anvil>;
  solana?: SolanaLedger;
  /** A fresh key with its id (for the usage API) and its RPC URL per network. */
  newKey(): Promise<{ key: string; id: string; url: (network: string) => string }>;
  /** Gives an address 100 ETH on an EVM network, straight on anvil (set-up, not metered). */
  fundEvm(network: string, address: string): Promise<void>;
  /** Airdrops lamports to an address, straight on the ledger (set-up, not metered). */
  airdrop(address: string, lamports: number): Promise<void>;
  /** Requests and credits per method the gateway recorded for a key (admin usage API). */
  usage(keyId: string): Promise<Map<string, { requests: number; credits: number }>>;
  close(): Promise<void>;
}

/** Starts anvil for each `evm` network (name → chain id), the Solana ledger if asked, and the gateway. */
export async function startChainStack(options: {
  evm?: Record<string, number>;
  solana?: boolean;
}): Promise<ChainStack> {
  const anvils: Record<string, Anvil> = {};
  let solana: SolanaLedger | undefined;
  const stop = async () => {
    const keepAlive = setInterval(() => {}, 1000); // anvil's child is unref'd: wait for its exit
    try {
      for (const anvil of Object.values(anvils)) await anvil.stop();
      await solana?.stop();
    } finally {
      clearInterval(keepAlive);
    }
  };
  try {
    const networks: Record<string, unknown>[] = [];
    for (const [name, chainId] of Object.entries(options.evm ?? {})) {
      anvils[name] = await startAnvil({ chainId });
      networks.push({ name, kind: 'evm', chainId: `eip155:${chainId}`, upstreams: [anvils[name].url] });
    }
    if (options.solana) {
      solana = await startSolanaLedger({ slotMs: 20 });
      networks.push({
        name: 'solana-local',
        kind: 'solana',
        chainId: solana.chainId,
        upstreams: [solana.url],
      });
    }
    const gateway = await startGateway(parseConfig({ port: 0, adminToken: ADMIN_TOKEN, networks }), {
      logger: pino({ level: 'silent' }),
    });
    return {
      gateway,
      anvils,
      solana,
      async newKey() {
        const { key, record } = await gateway.keys.create({
          name: 'provider test',
          dailyCredits: 10_000_000,
        });
        const url = (network: string) => {
          const found = gateway.networks.find((n) => n.name === network);
          if (!found) throw new Error(`no network ${network}`);
          return `${found.baseUrl}/v3/${key}`;
        };
        return { key, id: record.id, url };
      },
      fundEvm: (network, address) =>
        rpcCall(anvils[network].url, 'anvil_setBalance', [address, '0x56bc75e2d63100000']),
      airdrop: (address, lamports) => rpcCall(solana?.url ?? '', 'requestAirdrop', [address, lamports]),
      usage: (keyId) => usageByMethod(gateway.url, ADMIN_TOKEN, keyId),
      async close() {
        try {
          await gateway.close();
        } finally {
          await stop();
        }
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function rpcCall(url: string, method: string, params: unknown[]): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
}

/** A fetch that records the JSON-RPC method of every request it sends (one entry per request). */
export function recordingFetch(): { fetch: typeof fetch; methods: string[]; counts(): Map<string, number> } {
  const methods: string[] = [];
  return {
    methods,
    fetch: (input, init) => {
      const body = JSON.parse(String(init?.body)) as { method: string } | { method: string }[];
      for (const call of Array.isArray(body) ? body : [body]) methods.push(call.method);
      return fetch(input, init);
    },
    counts() {
      const counts = new Map<string, number>();
      for (const method of methods) counts.set(method, (counts.get(method) ?? 0) + 1);
      return counts;
    },
  };
}
