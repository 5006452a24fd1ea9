// A wagmi connector backed by `auth.provider`: connecting logs the user in when no session is
// there, disconnecting logs out (the provider has no account without a session, so a wagmi
// "disconnected but signed in" state would not last: the next reconnect would find the session).
// The provider's accountsChanged/chainChanged/disconnect events become wagmi's.
import type { Auth, AuthLoginParams, Eip155Provider } from '@portico/auth';
import { ChainNotConfiguredError, type Connector, createConnector } from '@wagmi/core';
import { PorticoReactError } from './errors.ts';

export interface PorticoAuthConnectorOptions {
  /** The instance, or a promise of it (e.g. `Auth.create(...)` started in the browser). */
  auth: Auth | Promise<Auth>;
  /** What `connect` logs in with when signed out (default `{}`: the login page); called per login. */
  loginParams?: AuthLoginParams | (() => AuthLoginParams | Promise<AuthLoginParams>);
  /** Connector id and name (default 'portico' and 'Portico'). */
  id?: string;
  name?: string;
}

type Listeners = {
  accountsChanged: (accounts: string[]) => void;
  chainChanged: (chainId: string) => void;
  disconnect: () => void;
};

const toNumber = (chainId: string | number) =>
  typeof chainId === 'number' ? chainId : Number.parseInt(chainId, chainId.startsWith('0x') ? 16 : 10);

/** `porticoAuth({ auth })`: pass it in `connectors` of wagmi's `createConfig`. */
export function porticoAuth(options: PorticoAuthConnectorOptions) {
  type Provider = Eip155Provider | undefined;
  return createConnector<Provider>((config) => {
    let listeners: Listeners | undefined;
    let attachedTo: Eip155Provider | undefined;
    let stopWatching: (() => void) | undefined;

    const eip155 = (auth: Auth): Eip155Provider | undefined => {
      if (auth.initParams.chainConfig && auth.initParams.chainConfig.chainNamespace !== 'eip155') {
        throw new PorticoReactError(
          'NOT_EIP155',
          `porticoAuth: the auth instance's chainConfig is ${auth.initParams.chainConfig.chainNamespace}; wagmi needs eip155`,
        );
      }
      return (auth.provider as Eip155Provider | null) ?? undefined;
    };

    const detach = () => {
      if (attachedTo && listeners) {
        attachedTo.removeListener('accountsChanged', listeners.accountsChanged);
        attachedTo.removeListener('chainChanged', listeners.chainChanged);
        attachedTo.removeListener('disconnect', listeners.disconnect);
      }
      attachedTo = undefined;
    };

    const attach = (provider: Eip155Provider, connector: Connector) => {
      if (attachedTo === provider) return;
      detach();
      listeners ??= {
        accountsChanged: (accounts) => connector.onAccountsChanged(accounts),
        chainChanged: (chainId) => connector.onChainChanged(chainId),
        disconnect: () => connector.onDisconnect(),
      };
      provider.on('accountsChanged', listeners.accountsChanged);
      provider.on('chainChanged', listeners.chainChanged);
      provider.on('disconnect', listeners.disconnect);
      attachedTo = provider;
    };

    const loginParams = async (): Promise<AuthLoginParams> => {
      const given = options.loginParams;
      return (typeof given === 'function' ? await given() : given) ?? {};
    };

    const switchTo = async (chainId: number) => {
      const chain = config.chains.find((c) => c.id === chainId);
      if (!chain) throw new ChainNotConfiguredError();
      const auth = await options.auth;
      const hex = `0x${chainId.toString(16)}`;
      const provider = eip155(auth);
      if (!provider) {
        // Signed out: the next login starts on that chain (it must be a chain of Auth's config).
        auth.switchChain({ chainId: hex });
      } else {
        // Chains the app added (chainConfig, auth.addChain) only: wagmi's transports are not
        // Portico gateway URLs, so they are not added to the provider from here.
        await provider.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: hex }] });
      }
      config.emitter.emit('change', { chainId });
      return chain;
    };

    return {
      id: options.id ?? 'portico',
      name: options.name ?? 'Portico',
      type: 'portico',

      async setup() {
        // A login made outside wagmi (the app's own button, useLogin) connects wagmi too.
        const auth = await options.auth;
        stopWatching?.();
        stopWatching = auth.on('change', () => {
          const provider = eip155(auth);
          if (!provider || provider === attachedTo) return;
          attach(provider, this as unknown as Connector);
          this.getAccounts().then(
            (accounts) => config.emitter.emit('connect', { accounts, chainId: toNumber(provider.chainId) }),
            (error: Error) => config.emitter.emit('error', { error }),
          );
        });
      },

      async connect({ chainId, isReconnecting } = {}) {
        const auth = await options.auth;
        let provider = eip155(auth);
        if (!provider) {
          if (isReconnecting)
            throw new PorticoReactError('NO_SESSION', 'porticoAuth: no session to reconnect');
          await auth.login(await loginParams());
          provider = eip155(auth);
          if (!provider) {
            throw new PorticoReactError(
              'NO_SESSION',
              'porticoAuth: no provider after login (set an eip155 chainConfig in Auth.create)',
            );
          }
        }
        attach(provider, this as unknown as Connector);
        let current = await this.getChainId();
        if (chainId !== undefined && chainId !== current) current = (await switchTo(chainId)).id;
        const accounts = await this.getAccounts();
        // The generic `withCapabilities` form is not offered: plain addresses only.
        return { accounts, chainId: current } as never;
      },

      async disconnect() {
        detach();
        const auth = await options.auth;
        if (auth.state.sessionId) await auth.logout();
      },

      async getAccounts() {
        const provider = eip155(await options.auth);
        if (!provider) return [];
        return (await provider.request({ method: 'eth_accounts' })) as `0x${string}`[];
      },

      async getChainId() {
        const auth = await options.auth;
        const provider = eip155(auth);
        if (provider) return toNumber((await provider.request({ method: 'eth_chainId' })) as string);
        const configured = auth.initParams.chainConfig?.chainId;
        return configured ? toNumber(configured) : config.chains[0].id;
      },

      async getProvider() {
        return eip155(await options.auth);
      },

      async isAuthorized() {
        return eip155(await options.auth) !== undefined;
      },

      switchChain: ({ chainId }) => switchTo(chainId),

      onAccountsChanged(accounts) {
        if (accounts.length === 0) this.onDisconnect();
        else config.emitter.emit('change', { accounts: accounts as `0x${string}`[] });
      },

      onChainChanged(chainId) {
        config.emitter.emit('change', { chainId: toNumber(chainId) });
      },

      onDisconnect() {
        detach();
        config.emitter.emit('disconnect');
      },
    };
  });
}
