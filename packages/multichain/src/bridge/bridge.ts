import type { Json, WalletNotification } from '../caip/types.ts';
import type { MultichainTransport } from '../transports/types.ts';
import { type BridgeSession, createBridgeSession, ProviderRpcError } from './connection.ts';
import { createEip1193Provider, type Eip1193Provider } from './eip1193.ts';
import { createSolanaStandardWallet, type StandardSolanaWallet } from './solana-wallet.ts';

/** The Multichain API as a page calls it through the bridge (what CAIP-294 announces). */
export type BridgeMultichainProvider = {
  request: (args: { method: string; params?: Json }) => Promise<Json>;
  /** wallet_sessionChanged (every change, whichever interface made it) and wallet_notify. */
  onNotification: (listener: (notification: WalletNotification) => void) => () => void;
};

export type WalletBridgeOptions = {
  /** The connection to the wallet, e.g. `createWebSocketTransport({ url: wallet.wsUrl })`. */
  transport: MultichainTransport;
  /** The CAIP-2 chains the wallet serves (`eip155:31337`, `solana:<genesis hash prefix>`). */
  chains: readonly string[];
  /** What the wallet is called and its icon (a data: URI), shown by the dapp's wallet picker. */
  name: string;
  icon: StandardSolanaWallet['icon'];
  /** The page's origin as the wallet sees it; default `location.origin`. */
  origin?: string;
};

export type WalletBridge = {
  /** EIP-1193: eth_requestAccounts, wallet_requestPermissions, wallet_revokePermissions, … */
  ethereum: Eip1193Provider;
  /** The Solana Wallet Standard wallet (standard:connect, standard:disconnect, solana:sign*). */
  solana: StandardSolanaWallet;
  /** wallet_createSession, wallet_getSession, wallet_invokeMethod, wallet_revokeSession. */
  multichain: BridgeMultichainProvider;
  /** Resolves once connected and the session is read. */
  ready: Promise<void>;
  close: () => Promise<void>;
};

const MULTICHAIN_METHODS = new Set([
  'wallet_createSession',
  'wallet_getSession',
  'wallet_invokeMethod',
  'wallet_revokeSession',
]);

/**
 * A wallet's browser bridge: one connection, one per-origin CAIP-25 session, and the three
 * interfaces dapps use (EIP-1193, the Solana Wallet Standard, the Multichain API) reading and
 * changing it. Each interface asks for or gives up only its own namespace, so connecting Solana
 * keeps the EVM connection and the other way round; the Multichain API's listeners hear
 * wallet_sessionChanged for every change, whichever interface made it.
 */
export function createWalletBridge(options: WalletBridgeOptions): WalletBridge {
  const session: BridgeSession = createBridgeSession(options.transport);
  const origin =
    options.origin ?? (globalThis as { location?: { origin?: string } }).location?.origin ?? 'unknown';
  const listeners = new Set<(notification: WalletNotification) => void>();
  const deliver = (notification: WalletNotification) => {
    for (const listener of [...listeners]) {
      try {
        listener(notification);
      } catch {
        // a dapp's listener failing must not stop the others
      }
    }
  };
  session.onChange((sessionScopes) =>
    deliver({ jsonrpc: '2.0', method: 'wallet_sessionChanged', params: { sessionScopes } }),
  );
  session.onNotify(deliver);
  session.ready.catch(() => {}); // each interface reports a failed connection on its own calls

  return {
    ethereum: createEip1193Provider(session, { chains: options.chains, origin }),
    solana: createSolanaStandardWallet(session, options),
    multichain: {
      async request({ method, params }) {
        if (!MULTICHAIN_METHODS.has(method))
          throw new ProviderRpcError(-32601, `The method "${method}" does not exist / is not available.`);
        return session.request(method, params ?? {});
      },
      onNotification(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    ready: session.ready,
    close: () => session.close(),
  };
}
