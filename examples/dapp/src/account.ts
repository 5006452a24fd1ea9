// The user's account through @portico/auth: a popup login, then `auth.provider` (EIP-1193, signs
// with the user's key) for viem, and the same user's Solana address. Every read and broadcast goes
// to the gateway URL in chainConfig.rpcTarget, so each call is metered on the app's API key.
import { Auth, type AuthInitParams, type Eip155Provider } from '@portico/auth';
import { createSolanaProvider } from '@portico/auth/providers/solana';
import { address, createSolanaRpc } from '@solana/kit';
import {
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  formatEther,
  formatUnits,
  type Hex,
  parseEther,
  type TransactionReceipt,
} from 'viem';
import { config } from './config.ts';

/** This app's project id (any base64 text works with `portico dev`; the keys the user gets depend on it). */
const CLIENT_ID = 'BMQaZGuE946sDwPXp67Fclct_2-nw-7h6YBsKph9WMY3hKgj-tjd3NaMLti1beJgLYqVdQkc7UPkui9lETCs6Lg';

export type Account = {
  evmAddress: Hex;
  solanaAddress: string;
  /** ETH and SOL balances, as text, read through the gateway. */
  balances(): Promise<{ eth: string; sol: string }>;
  /** Sends ETH with auth.provider and waits for the receipt. */
  sendEth(to: Hex, amount: string): Promise<TransactionReceipt>;
};

const chainId = Number(config.evm.chainId.split(':')[1]);
export const devChain = defineChain({
  id: chainId,
  name: 'Portico dev chain',
  nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
  rpcUrls: { default: { http: [config.evm.rpcUrl] } },
});

/** The app's init parameters: its project id, the auth service, its chain on the gateway. */
export const authInitParams: AuthInitParams = {
  clientId: CLIENT_ID,
  network: 'sapphire_devnet',
  sdkUrl: config.authUrl,
  chainConfig: {
    chainNamespace: 'eip155',
    chainId: `0x${chainId.toString(16)}`,
    rpcTarget: config.evm.rpcUrl,
  },
};

/** Auth with the app's chain; a session left by an earlier visit is restored. */
export function createAuth(): Promise<Auth> {
  return Auth.create(authInitParams);
}

/** The logged-in user's account, or undefined when nobody is logged in. */
export async function accountOf(auth: Auth): Promise<Account | undefined> {
  if (!auth.provider) return undefined;
  const transport = custom(auth.provider as Eip155Provider);
  const chain = createPublicClient({ chain: devChain, transport, pollingInterval: 500 });
  const wallet = createWalletClient({ chain: devChain, transport });
  const [evmAddress] = await wallet.requestAddresses();

  // The same login holds an ed25519 key too: a Solana provider built on it gives its address.
  const solanaProvider = createSolanaProvider({
    getEd25519PrivKey: () => auth.getEd25519PrivKey(),
    chainConfig: {
      chainNamespace: 'solana',
      chainId: config.solana.chainId,
      rpcTarget: config.solana.rpcUrl,
    },
  });
  const [solanaAddress] = await solanaProvider.requestAccounts();
  const solana = createSolanaRpc(config.solana.rpcUrl);

  return {
    evmAddress,
    solanaAddress,
    async balances() {
      const [wei, { value: lamports }] = await Promise.all([
        chain.getBalance({ address: evmAddress }),
        solana.getBalance(address(solanaAddress), { commitment: 'confirmed' }).send(),
      ]);
      return { eth: `${formatEther(wei)} ETH`, sol: `${formatUnits(lamports, 9)} SOL` };
    },
    async sendEth(to, amount) {
      const hash = await wallet.sendTransaction({ account: evmAddress, to, value: parseEther(amount) });
      return chain.waitForTransactionReceipt({ hash });
    },
  };
}
