// `auth.provider` found by dapps the way they find injected wallets: EIP-6963 announces one EIP-1193
// provider that stays the same object across logins (wallet libraries keep the provider they
// discovered), forwards to `auth.provider` while a user is logged in, and on `eth_requestAccounts`
// without a user runs the app's own login.
import type { Eip155Provider } from './eip155/provider.ts';
import type { ProviderError } from './errors.ts';
import type { RequestArguments } from './key-backed-provider.ts';

export type ProviderIdentity = {
  /** Per page load (EIP-6963 asks for a UUIDv4); default `crypto.randomUUID()`. */
  uuid?: string;
  name: string;
  /** A data: URI, as EIP-6963 asks. */
  icon: string;
  /** Reverse DNS name, e.g. `com.example.app`. */
  rdns: string;
};

type Listener = (...args: unknown[]) => void;

/** EIP-1193's errors, made here so the main entry loads no error library up front. */
const providerError = (code: 4001 | 4900, message: string): ProviderError =>
  Object.assign(new Error(message), { code });
const EVENTS = ['connect', 'disconnect', 'accountsChanged', 'chainChanged', 'message'] as const;

/** The provider EIP-6963 announces: the same object whoever is logged in. */
export type AnnouncedProvider = {
  request: (args: RequestArguments) => Promise<unknown>;
  on: (event: string, listener: Listener) => AnnouncedProvider;
  removeListener: (event: string, listener: Listener) => AnnouncedProvider;
};

export type AnnounceOptions = {
  /**
   * Logs a user in when a dapp asks for accounts and nobody is (e.g. `() => auth.login({
   * loginProvider: 'google' })`). Without it, `eth_requestAccounts` is 4001 while logged out.
   */
  connect?: () => Promise<unknown>;
  /** Where the events go; default `window`. */
  target?: EventTarget;
};

/**
 * Announces `auth.provider` (eip155) with EIP-6963: `eip6963:announceProvider` now and on every
 * `eip6963:requestProvider`. Returns the announced provider and a function that stops answering.
 */
export function announceAuthProvider(
  auth: { readonly provider: unknown },
  identity: ProviderIdentity,
  options: AnnounceOptions = {},
): { provider: AnnouncedProvider; stop: () => void } {
  const target = options.target ?? (globalThis as unknown as { window: EventTarget }).window;
  const listeners = new Map<string, Set<Listener>>();
  const attached = new WeakSet<object>();
  const emit = (event: string, args: unknown[]) => {
    for (const listener of [...(listeners.get(event) ?? [])]) {
      try {
        listener(...args);
      } catch {
        // a dapp's listener failing must not stop the others
      }
    }
  };
  /** The logged-in user's provider, its events relayed (once per provider object). */
  const current = (): Eip155Provider | null => {
    const inner = auth.provider as Eip155Provider | null;
    if (inner && !attached.has(inner)) {
      attached.add(inner);
      for (const event of EVENTS)
        inner.on(event as never, ((...args: unknown[]) => emit(event, args)) as never);
    }
    return inner;
  };

  const provider: AnnouncedProvider = {
    async request(args) {
      let inner = current();
      if (!inner && args.method === 'eth_accounts') return [];
      if (!inner && args.method === 'eth_requestAccounts') {
        if (!options.connect)
          throw providerError(4001, 'No user is logged in, and this app logs in nobody from here.');
        await options.connect();
        inner = current();
        if (!inner) throw providerError(4001, 'The user did not log in.');
        const accounts = await inner.request({ method: 'eth_accounts' });
        emit('accountsChanged', [accounts]);
        return accounts;
      }
      if (!inner) throw providerError(4900, 'No user is logged in.');
      return inner.request(args as never);
    },
    on(event, listener) {
      current();
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
      }
      set.add(listener);
      return provider;
    },
    removeListener(event, listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
  };

  const { name, icon, rdns } = identity;
  const uuid = identity.uuid ?? crypto.randomUUID();
  const detail = Object.freeze({ info: Object.freeze({ uuid, name, icon, rdns }), provider });
  const announce = () => target.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail }));
  target.addEventListener('eip6963:requestProvider', announce);
  announce();
  return { provider, stop: () => target.removeEventListener('eip6963:requestProvider', announce) };
}
