import { isPlainObject } from '@metamask/utils';
import { own } from '../caip/own.ts';
import type { Json, SessionScopes } from '../caip/types.ts';
import { accountsIn, type BridgeSession, ProviderRpcError } from './connection.ts';

export type Eip1193RequestArguments = {
  readonly method: string;
  readonly params?: readonly unknown[] | object;
};
export type Eip1193EventName = 'connect' | 'disconnect' | 'chainChanged' | 'accountsChanged' | 'message';
type Listener = (value: unknown) => void;

/** An EIP-1193 provider (what EIP-6963 announces). */
export type Eip1193Provider = {
  request: (args: Eip1193RequestArguments) => Promise<unknown>;
  on: (event: Eip1193EventName, listener: Listener) => Eip1193Provider;
  removeListener: (event: Eip1193EventName, listener: Listener) => Eip1193Provider;
};

/** EIP-2255's permission as wallet_getPermissions / wallet_requestPermissions answer it. */
type Permission = {
  parentCapability: 'eth_accounts';
  invoker: string;
  caveats: { type: 'restrictReturnedAccounts'; value: string[] }[];
};

const EIP155 = /^eip155:[0-9]{1,32}$/;
const isEip155Scope = (scope: string) => EIP155.test(scope) || scope === 'wallet:eip155';

/**
 * EIP-1193 over the bridge's one session: eth_requestAccounts / wallet_requestPermissions add the
 * eip155 scopes (every chain the wallet serves) to the origin's CAIP-25 session, and
 * wallet_revokePermissions removes only them; every other method runs on the current chain through
 * wallet_invokeMethod.
 */
export function createEip1193Provider(
  session: BridgeSession,
  options: { chains: readonly string[]; origin: string },
): Eip1193Provider {
  const chains = options.chains.filter((chain) => EIP155.test(chain));
  const listeners = new Map<Eip1193EventName, Set<Listener>>();
  const emit = (event: Eip1193EventName, value: unknown) => {
    for (const listener of [...(listeners.get(event) ?? [])]) {
      try {
        listener(value);
      } catch {
        // a dapp's listener failing must not stop the others
      }
    }
  };
  let chain = chains[0];
  const hexChainId = () => `0x${BigInt(chain?.split(':')[1] ?? '0').toString(16)}`;
  const accounts = (scopes: SessionScopes = session.scopes) => (chain ? accountsIn(scopes, chain) : []);
  let lastAccounts = accounts();

  session.onChange((scopes) => {
    // The current chain left the session but another eip155 chain is granted: follow it.
    if (chain && !own(scopes, chain)) {
      const granted = chains.find((candidate) => own(scopes, candidate));
      if (granted) {
        chain = granted;
        emit('chainChanged', hexChainId());
      }
    }
    const next = accounts(scopes);
    if (JSON.stringify(next) !== JSON.stringify(lastAccounts)) {
      lastAccounts = next;
      emit('accountsChanged', next);
    }
  });
  session.onNotify((notification) => {
    const { scope, notification: inner } = notification.params as {
      scope: string;
      notification: { method: string; params: Json };
    };
    if (scope === chain && inner.method === 'eth_subscription')
      emit('message', { type: 'eth_subscription', data: inner.params });
  });
  session.onDisconnect((error) => emit('disconnect', error));
  session.ready.then(
    () => emit('connect', { chainId: hexChainId() }),
    () => emit('disconnect', new ProviderRpcError(4900, 'The wallet could not be reached.')),
  );

  const permissions = (): Permission[] => {
    const granted = accounts();
    if (granted.length === 0) return [];
    return [
      {
        parentCapability: 'eth_accounts',
        invoker: options.origin,
        caveats: [{ type: 'restrictReturnedAccounts', value: granted }],
      },
    ];
  };
  const connectAccounts = async () => {
    if (chains.length === 0) throw new ProviderRpcError(4900, 'The wallet serves no EVM chain.');
    const asked = Object.fromEntries(chains.map((id) => [id, { methods: [], notifications: [] }]));
    const scopes = await session.requestScopes(asked);
    return accounts(scopes);
  };
  const firstParam = (params: Eip1193RequestArguments['params']) =>
    Array.isArray(params) ? (params[0] as unknown) : undefined;
  const asksForAccounts = (params: Eip1193RequestArguments['params']) => {
    const first = firstParam(params);
    return isPlainObject(first) && Object.hasOwn(first, 'eth_accounts');
  };

  function switchTo(first: unknown, adding: boolean): null {
    const asked = isPlainObject(first) ? own(first, 'chainId') : undefined;
    if (typeof asked !== 'string' || !/^0x[0-9a-f]+$/i.test(asked))
      throw new ProviderRpcError(-32602, 'chainId must be a 0x-prefixed hexadecimal string.');
    const target = `eip155:${BigInt(asked).toString(10)}`;
    if (!chains.includes(target))
      throw new ProviderRpcError(
        4902,
        adding
          ? `The wallet cannot add chain ${asked}: it serves only ${chains.join(', ') || 'no EVM chain'}, the networks its operator configured.`
          : `Unrecognized chain ID "${asked}". The wallet does not serve it.`,
      );
    if (target !== chain) {
      chain = target;
      emit('chainChanged', hexChainId());
      const next = accounts();
      if (JSON.stringify(next) !== JSON.stringify(lastAccounts)) {
        lastAccounts = next;
        emit('accountsChanged', next);
      }
    }
    return null;
  }

  async function request({ method, params }: Eip1193RequestArguments): Promise<unknown> {
    if (typeof method !== 'string') throw new ProviderRpcError(-32600, 'The method must be a string.');
    switch (method) {
      case 'eth_chainId':
        return hexChainId();
      case 'net_version':
        return BigInt(chain?.split(':')[1] ?? '0').toString(10);
      case 'eth_accounts':
        await session.fresh();
        return accounts();
      case 'eth_requestAccounts': {
        await session.fresh();
        const granted = accounts();
        return granted.length > 0 ? granted : connectAccounts();
      }
      case 'wallet_getPermissions':
        await session.fresh();
        return permissions();
      case 'wallet_requestPermissions':
        if (!asksForAccounts(params))
          throw new ProviderRpcError(-32602, 'Only the eth_accounts permission can be requested.');
        await connectAccounts();
        return permissions();
      case 'wallet_revokePermissions':
        if (!asksForAccounts(params))
          throw new ProviderRpcError(-32602, 'Only the eth_accounts permission can be revoked.');
        await session.fresh();
        await session.revokeScopes(Object.keys(session.scopes).filter(isEip155Scope));
        return null;
      case 'wallet_switchEthereumChain':
        return switchTo(firstParam(params), false);
      // EIP-3085: the wallet serves the networks its operator configured; adding one of those
      // switches to it, any other is 4902 (the dapp cannot add a network the gateway lacks).
      case 'wallet_addEthereumChain':
        return switchTo(firstParam(params), true);
      default: {
        if (!chain) throw new ProviderRpcError(4900, 'The wallet serves no EVM chain.');
        const call: Json = params === undefined ? { method } : { method, params: params as Json };
        return session.request('wallet_invokeMethod', { scope: chain, request: call });
      }
    }
  }

  const provider: Eip1193Provider = {
    request,
    on(event, listener) {
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
  return provider;
}
