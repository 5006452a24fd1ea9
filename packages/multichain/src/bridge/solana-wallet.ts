import { base58, base64 } from '@scure/base';
import type {
  SolanaSignAndSendTransactionFeature,
  SolanaSignInFeature,
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
import { own } from '../caip/own.ts';
import type { Json, SessionScopes } from '../caip/types.ts';
import { accountsIn, type BridgeSession, ProviderRpcError } from './connection.ts';

export type { SolanaSignInInput, SolanaSignInOutput } from '@solana/wallet-standard-features';
/** A Wallet Standard account (`@wallet-standard/base`'s WalletAccount). */
export type StandardWalletAccount = WalletAccount;
/** A Solana wallet as `@wallet-standard/app`'s `getWallets()` lists it, with the features it offers. */
export type StandardSolanaWallet = Wallet & {
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

/** CAIP-2 ids of the public clusters and their Wallet Standard names; other chains keep their CAIP-2 id. */
const CLUSTERS: Record<string, IdentifierString> = {
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'solana:mainnet',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': 'solana:devnet',
  'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z': 'solana:testnet',
};
const FEATURES: IdentifierString[] = [
  'solana:signMessage',
  'solana:signTransaction',
  'solana:signAndSendTransaction',
];
const SOLANA = /^solana:[-_a-zA-Z0-9]{1,32}$/;

/**
 * A Solana Wallet Standard wallet over the bridge's one session: connect adds the solana scopes
 * (every Solana chain the wallet serves) to the origin's CAIP-25 session, disconnect removes only
 * them; signing runs through wallet_invokeMethod in the shapes of MetaMask's Solana scope.
 */
export function createSolanaStandardWallet(
  session: BridgeSession,
  options: { chains: readonly string[]; name: string; icon: StandardSolanaWallet['icon'] },
): StandardSolanaWallet {
  const scopes = options.chains.filter((chain) => SOLANA.test(chain));
  const standardName = (scope: string) => CLUSTERS[scope] ?? (scope as IdentifierString);
  const scopeOf = (name: IdentifierString | undefined) =>
    name === undefined ? undefined : scopes.find((scope) => standardName(scope) === name);
  const listeners = new Set<ChangeListener>();
  const known = new Map<string, StandardWalletAccount>();

  // The same account object while its address and chains stay, as the standard expects.
  const accountsOf = (granted: SessionScopes): StandardWalletAccount[] => {
    const byAddress = new Map<string, IdentifierString[]>();
    for (const scope of scopes)
      for (const address of accountsIn(granted, scope))
        byAddress.set(address, [...(byAddress.get(address) ?? []), standardName(scope)]);
    return [...byAddress].map(([address, chains]) => {
      const previous = known.get(address);
      if (previous && JSON.stringify(previous.chains) === JSON.stringify(chains)) return previous;
      const account = Object.freeze({
        address,
        publicKey: base58.decode(address),
        chains,
        features: FEATURES,
      });
      known.set(address, account);
      return account;
    });
  };
  let accounts = accountsOf(session.scopes);
  session.onChange((next) => {
    const updated = accountsOf(next);
    if (updated.length === accounts.length && updated.every((account, i) => account === accounts[i])) return;
    accounts = updated;
    for (const listener of [...listeners]) {
      try {
        listener({ accounts });
      } catch {
        // a dapp's listener failing must not stop the others
      }
    }
  });

  /** The scope a request runs on: the chain asked for, else the first granted chain holding the account. */
  const scopeFor = ({ account, chain }: SignInput): string => {
    const granted = session.scopes;
    const asked = scopeOf(chain);
    if (chain !== undefined && !asked)
      throw new ProviderRpcError(4100, `The wallet does not serve ${chain}.`);
    const candidates = asked ? [asked] : scopes;
    const scope = candidates.find(
      (id) => own(granted, id) && accountsIn(granted, id).includes(account.address),
    );
    if (!scope)
      throw new ProviderRpcError(
        4100,
        'The requested account and/or method has not been authorized by the user.',
      );
    return scope;
  };
  /** Asks for the Solana scopes unless an account is granted already. */
  const connect = async (silent = false) => {
    await session.fresh();
    if (accounts.length > 0 || silent) return;
    if (scopes.length === 0) throw new ProviderRpcError(4900, 'The wallet serves no Solana chain.');
    await session.requestScopes(
      Object.fromEntries(scopes.map((scope) => [scope, { methods: [], notifications: [] }])),
    );
  };
  const invoke = (scope: string, method: string, params: Record<string, Json>) =>
    session.request('wallet_invokeMethod', { scope, request: { method, params } }) as Promise<
      Record<string, string>
    >;

  return {
    version: '1.0.0',
    name: options.name,
    icon: options.icon,
    chains: scopes.map(standardName),
    get accounts() {
      return accounts;
    },
    features: {
      'standard:connect': {
        version: '1.0.0',
        async connect(input) {
          await connect(input?.silent === true);
          return { accounts };
        },
      },
      'standard:disconnect': {
        version: '1.0.0',
        async disconnect() {
          await session.fresh();
          await session.revokeScopes(
            Object.keys(session.scopes).filter((scope) => scope.startsWith('solana:')),
          );
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
        // Signs in and connects: without a granted account the person is asked for one first.
        async signIn(...inputs) {
          await connect();
          const outputs: SolanaSignInOutput[] = [];
          for (const input of inputs) {
            const address = input.address ?? accounts[0]?.address;
            const account = accounts.find((candidate) => candidate.address === address);
            if (!account)
              throw new ProviderRpcError(4100, 'The requested account has not been authorized by the user.');
            const params: Record<string, Json> = {};
            for (const [key, value] of Object.entries(input))
              if (value !== undefined) params[key] = Array.isArray(value) ? [...value] : (value as Json);
            const result = await invoke(scopeFor({ account }), 'signIn', {
              ...params,
              address: account.address,
            });
            outputs.push({
              account,
              signedMessage: base64.decode(result.signedMessage),
              signature: base58.decode(result.signature),
              signatureType: 'ed25519',
            });
          }
          return outputs;
        },
      },
      'solana:signMessage': {
        version: '1.0.0',
        async signMessage(...inputs) {
          const outputs = [];
          for (const input of inputs) {
            const result = await invoke(scopeFor(input), 'signMessage', {
              account: { address: input.account.address },
              message: base64.encode(input.message),
            });
            outputs.push({
              signedMessage: base64.decode(result.signedMessage),
              signature: base58.decode(result.signature),
              signatureType: 'ed25519' as const,
            });
          }
          return outputs;
        },
      },
      'solana:signTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy', 0],
        async signTransaction(...inputs) {
          // Several transactions of one account on one chain: one approval (signAllTransactions).
          const [first] = inputs;
          if (
            first &&
            inputs.length > 1 &&
            inputs.every(
              (input) => input.account.address === first.account.address && input.chain === first.chain,
            )
          ) {
            const scope = scopeFor(first);
            const result = (await session.request('wallet_invokeMethod', {
              scope,
              request: {
                method: 'signAllTransactions',
                params: {
                  account: { address: first.account.address },
                  transactions: inputs.map((input) => base64.encode(input.transaction)),
                  scope,
                },
              },
            })) as { signedTransactions: string[] };
            return result.signedTransactions.map((signed) => ({ signedTransaction: base64.decode(signed) }));
          }
          const outputs = [];
          for (const input of inputs) {
            const scope = scopeFor(input);
            const result = await invoke(scope, 'signTransaction', {
              account: { address: input.account.address },
              transaction: base64.encode(input.transaction),
              scope,
            });
            outputs.push({ signedTransaction: base64.decode(result.signedTransaction) });
          }
          return outputs;
        },
      },
      'solana:signAndSendTransaction': {
        version: '1.0.0',
        supportedTransactionVersions: ['legacy', 0],
        async signAndSendTransaction(...inputs) {
          const outputs = [];
          for (const input of inputs) {
            const scope = scopeFor(input);
            const result = await invoke(scope, 'signAndSendTransaction', {
              account: { address: input.account.address },
              transaction: base64.encode(input.transaction),
              scope,
              ...(input.options ? { options: input.options } : {}),
            });
            outputs.push({ signature: base58.decode(result.signature) });
          }
          return outputs;
        },
      },
    },
  };
}
