// `auth.provider`'s Solana side found by dapps the way they find Solana wallets: the Wallet Standard
// (`wallet-standard:register-wallet` now, and on every `wallet-standard:app-ready`, as
// `@wallet-standard/wallet`'s registerWallet does). One wallet object across logins; it signs with
// the logged-in user's Solana provider and runs the app's own login on `standard:connect`.
// No Solana library here: the main entry stays light (base58, from @scure/base, is the only codec needed).
import { base58 } from '@scure/base';
import type {
  SolanaSignAndSendTransactionFeature,
  SolanaSignInFeature,
  SolanaSignInInput,
  SolanaSignInOutput,
  SolanaSignMessageFeature,
  SolanaSignTransactionFeature,
} from '@solana/wallet-standard-features';
import type { IdentifierString, Wallet, WalletAccount } from '@wallet-standard/base';
import type {
  StandardConnectFeature,
  StandardDisconnectFeature,
  StandardEventsChangeProperties,
  StandardEventsFeature,
} from '@wallet-standard/features';
import type { ProviderIdentity } from './announce.ts';
import type { ProviderError } from './errors.ts';
import { signInMessageText } from './siws.ts';

/** A Wallet Standard account (`@wallet-standard/base`'s WalletAccount). */
export type AuthSolanaAccount = WalletAccount;
export type { SolanaSignInInput, SolanaSignInOutput };

/** The wallet `getWallets()` of `@wallet-standard/app` lists, with the Solana features it offers. */
export type AuthSolanaWallet = Wallet & {
  readonly features: StandardConnectFeature &
    StandardDisconnectFeature &
    StandardEventsFeature &
    SolanaSignInFeature &
    SolanaSignMessageFeature &
    SolanaSignTransactionFeature &
    SolanaSignAndSendTransactionFeature;
};
type ChangeListener = (properties: StandardEventsChangeProperties) => void;
type SignInput = { account: WalletAccount; chain?: IdentifierString };

export type AnnounceSolanaOptions = {
  /**
   * Logs a user in when a dapp connects (or signs in) and nobody is, e.g. `() => auth.login({
   * loginProvider: 'google' })`. Without it, `standard:connect` is 4001 while logged out.
   */
  connect?: () => Promise<unknown>;
  /**
   * What `standard:disconnect` does besides hiding the account from the dapp until it connects
   * again, e.g. `() => auth.logout()`. Default: nothing more (the user stays logged in).
   */
  disconnect?: () => Promise<unknown>;
  /**
   * The chains the wallet lists (Wallet Standard names: `solana:mainnet`, `solana:devnet`,
   * `solana:testnet`, else the CAIP-2 id). Default: the chain of `auth.initParams.chainConfig`.
   */
  chains?: readonly IdentifierString[];
  /** Where the events go; default `window`. */
  target?: EventTarget;
};

/** What the wallet uses of `auth.provider` on solana (`SolanaProvider`). */
type SolanaLike = {
  getSigner(): { address: string };
  signMessage(message: Uint8Array): Promise<Uint8Array>;
  signTransaction(transaction: Uint8Array): Promise<Uint8Array>;
  signAndSendTransaction(transaction: Uint8Array): Promise<{ signature: string }>;
  on(event: 'accountsChanged', listener: (accounts: string[]) => void): unknown;
};

const providerError = (code: 4001 | 4100 | 4900, message: string): ProviderError =>
  Object.assign(new Error(message), { code });

/** CAIP-2 references of the public clusters and their Wallet Standard names. */
const CLUSTERS: Record<string, IdentifierString> = {
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'solana:mainnet',
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1: 'solana:devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': 'solana:testnet',
  // Web3Auth's 0x2 as @portico/auth spells it (normalizeChainId).
  '4uhcVJyU9pJkvQyS88uRDiswHXSRkP4U': 'solana:testnet',
};
const WEB3AUTH: Record<string, IdentifierString> = {
  '0x1': 'solana:mainnet',
  '0x2': 'solana:testnet',
  '0x3': 'solana:devnet',
};

/** The Wallet Standard name of a Solana chain id of a chainConfig. */
function standardChain(chainId: string): IdentifierString {
  const web3auth = WEB3AUTH[chainId.toLowerCase()];
  if (web3auth) return web3auth;
  const reference = chainId.startsWith('solana:') ? chainId.slice('solana:'.length) : chainId;
  return CLUSTERS[reference] ?? `solana:${reference}`;
}

const FEATURES: IdentifierString[] = [
  'solana:signIn',
  'solana:signMessage',
  'solana:signTransaction',
  'solana:signAndSendTransaction',
];

/**
 * Registers `auth.provider`'s Solana side as a Wallet Standard wallet (`standard:connect`,
 * `standard:disconnect`, `standard:events`, `solana:signIn`, `solana:signMessage`,
 * `solana:signTransaction`, `solana:signAndSendTransaction`). The auth must have a solana
 * `chainConfig`. Returns the wallet (the same object across logins) and a function that unregisters it.
 */
export function announceAuthSolanaWallet(
  auth: {
    readonly provider: unknown;
    readonly initParams?: { readonly chainConfig?: { chainNamespace?: string; chainId?: string } };
  },
  identity: Omit<ProviderIdentity, 'rdns' | 'uuid' | 'icon'> & { icon: AuthSolanaWallet['icon'] },
  options: AnnounceSolanaOptions = {},
): { wallet: AuthSolanaWallet; stop: () => void } {
  const target = options.target ?? (globalThis as unknown as { window: EventTarget }).window;
  const config = auth.initParams?.chainConfig;
  const chains =
    options.chains ??
    (config?.chainNamespace === 'solana' && config.chainId ? [standardChain(config.chainId)] : []);
  const listeners = new Set<ChangeListener>();
  const attached = new WeakSet<object>();
  /** Set by standard:disconnect: the dapp sees no account until it connects again. */
  let hidden = false;
  let account: AuthSolanaAccount | undefined;
  let reported: readonly AuthSolanaAccount[] = [];

  /** The logged-in user's Solana provider, its account changes relayed (once per provider object). */
  const current = (): SolanaLike | null => {
    const inner = auth.provider as SolanaLike | null;
    if (!inner || typeof inner.getSigner !== 'function' || typeof inner.signTransaction !== 'function')
      return null;
    if (!attached.has(inner)) {
      attached.add(inner);
      inner.on('accountsChanged', () => report());
    }
    return inner;
  };
  /** The user's address, or undefined when nobody is logged in (the provider answers 4900 then). */
  const address = (): string | undefined => {
    try {
      return current()?.getSigner().address;
    } catch {
      return undefined;
    }
  };
  const accounts = (): readonly AuthSolanaAccount[] => {
    const now = hidden ? undefined : address();
    if (now === undefined) return [];
    // The same account object while the address stays, as the standard expects.
    if (account?.address !== now)
      account = Object.freeze({ address: now, publicKey: base58.decode(now), chains, features: FEATURES });
    return [account];
  };
  const report = () => {
    const next = accounts();
    if (next.length === reported.length && next.every((a, i) => a === reported[i])) return;
    reported = next;
    for (const listener of [...listeners]) {
      try {
        listener({ accounts: next });
      } catch {
        // a dapp's listener failing must not stop the others
      }
    }
  };

  const connect = async (silent: boolean): Promise<readonly AuthSolanaAccount[]> => {
    hidden = false;
    if (!address() && !silent) {
      if (!options.connect)
        throw providerError(4001, 'No user is logged in, and this app logs in nobody from here.');
      await options.connect();
      if (!address()) throw providerError(4001, 'The user did not log in.');
    }
    report();
    return accounts();
  };
  /** The provider to sign with for this account and chain: 4900 logged out, 4100 another account. */
  const signer = ({ account: asked, chain }: SignInput): SolanaLike => {
    const inner = current();
    const now = address();
    if (!inner || !now || hidden)
      throw providerError(4900, 'No user is logged in (or the dapp disconnected).');
    if (asked?.address !== now)
      throw providerError(4100, `The account ${asked?.address} is not the logged-in user’s (${now}).`);
    if (chain !== undefined && !chains.includes(chain))
      throw providerError(4100, `The wallet does not serve ${chain}.`);
    return inner;
  };

  const wallet: AuthSolanaWallet = {
    version: '1.0.0',
    name: identity.name,
    icon: identity.icon,
    chains,
    get accounts() {
      return accounts();
    },
    features: {
      'standard:connect': {
        version: '1.0.0',
        connect: async (input) => ({ accounts: await connect(input?.silent === true) }),
      },
      'standard:disconnect': {
        version: '1.0.0',
        async disconnect() {
          hidden = true;
          report();
          await options.disconnect?.();
        },
      },
      'standard:events': {
        version: '1.0.0',
        on(_event, listener) {
          listeners.add(listener);
          return () => {
            listeners.delete(listener);
          };
        },
      },
      'solana:signIn': {
        version: '1.0.0',
        // Signs in and connects: without a user the app's login runs first.
        async signIn(...inputs) {
          const [connected] = await connect(false);
          const outputs: SolanaSignInOutput[] = [];
          for (const input of inputs.length > 0 ? inputs : [{}]) {
            if (input.address !== undefined && input.address !== connected.address)
              throw providerError(4100, `The account ${input.address} is not the logged-in user’s.`);
            const domain = input.domain ?? (globalThis as { location?: { host?: string } }).location?.host;
            if (!domain) throw new TypeError('signIn: no domain given and no page location to take it from');
            const text = signInMessageText({ ...input, domain, address: connected.address });
            const signedMessage = new TextEncoder().encode(text);
            const signature = await signer({ account: connected }).signMessage(signedMessage);
            outputs.push({ account: connected, signedMessage, signature, signatureType: 'ed25519' });
          }
          return outputs;
        },
      },
      'solana:signMessage': {
        version: '1.0.0',
        async signMessage(...inputs) {
          const outputs = [];
          for (const input of inputs) {
            const signature = await signer(input).signMessage(input.message);
            outputs.push({ signedMessage: input.message, signature, signatureType: 'ed25519' as const });
          }
          return outputs;
        },
      },
      'solana:signTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy', 0],
        async signTransaction(...inputs) {
          const outputs = [];
          for (const input of inputs)
            outputs.push({ signedTransaction: await signer(input).signTransaction(input.transaction) });
          return outputs;
        },
      },
      'solana:signAndSendTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy', 0],
        // Sent with the provider's own options (preflight at `confirmed`); the input's options are not used.
        async signAndSendTransaction(...inputs) {
          const outputs = [];
          for (const input of inputs) {
            const { signature } = await signer(input).signAndSendTransaction(input.transaction);
            outputs.push({ signature: base58.decode(signature) });
          }
          return outputs;
        },
      },
    },
  };

  // The protocol of @wallet-standard/wallet's registerWallet, written out (no dependency for it).
  const unregister: (() => void)[] = [];
  const callback = (api: { register: (wallet: AuthSolanaWallet) => () => void }) => {
    unregister.push(api.register(wallet));
  };
  const onAppReady = (event: Event) => callback((event as CustomEvent).detail);
  target.dispatchEvent(
    new CustomEvent('wallet-standard:register-wallet', {
      detail: callback,
      bubbles: false,
      cancelable: false,
    }),
  );
  target.addEventListener('wallet-standard:app-ready', onAppReady);
  current();
  reported = accounts();
  return {
    wallet,
    stop: () => {
      target.removeEventListener('wallet-standard:app-ready', onAppReady);
      for (const off of unregister.splice(0)) off();
    },
  };
}
