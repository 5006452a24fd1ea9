import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { LocalAccount } from 'viem/accounts';
import { mnemonicToAccount } from 'viem/accounts';
import { deriveEd25519PrivateKey } from './slip10.ts';

/** anvil's and Hardhat's well-known development mnemonic: never hold real funds with it. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** A Solana account: its base58 address and an ed25519 signer (the private key stays inside). */
export type SolanaAccount = {
  address: string;
  publicKey: Uint8Array;
  sign: (message: Uint8Array) => Uint8Array;
};

/** The account type of each namespace the wallet signs in. */
export type NamespaceAccounts = {
  /** viem local accounts: `mnemonicToAccount`, `privateKeyToAccount`, … */
  eip155: LocalAccount;
  /** `solanaAccountFromPrivateKey(key)` */
  solana: SolanaAccount;
};
export type KeyringNamespace = keyof NamespaceAccounts;

export type Keyring = {
  /** The EVM accounts held now (from the mnemonic: m/44'/60'/0'/0/i). */
  readonly eip155: readonly LocalAccount[];
  /** The Solana accounts held now (from the mnemonic: m/44'/501'/i'/0', SLIP-0010, as Phantom and Solflare). */
  readonly solana: readonly SolanaAccount[];
  /** The Solana account for a base58 address, if held. */
  solanaAccount: (address: string) => SolanaAccount | undefined;
  /** The addresses held in a namespace. */
  addresses: (namespace: string) => string[];
  /** The EVM account for an address (any case), if held. */
  eip155Account: (address: string) => LocalAccount | undefined;
  /** Replaces every account of one namespace (e.g. the keys of the user who logged in). */
  replace: <N extends KeyringNamespace>(namespace: N, accounts: readonly NamespaceAccounts[N][]) => void;
};

/** A Solana account from a 32-byte ed25519 private key (the key stays inside the signer). */
export function solanaAccountFromPrivateKey(privateKey: Uint8Array): SolanaAccount {
  if (privateKey.length !== 32) throw new Error('a Solana private key is 32 bytes (an ed25519 seed)');
  const key = Uint8Array.from(privateKey);
  const publicKey = ed25519.getPublicKey(key);
  return { address: base58.encode(publicKey), publicKey, sign: (message) => ed25519.sign(message, key) };
}

/** The first `count` accounts of a BIP-39 mnemonic in each namespace. Keys stay in the signers. */
export function deriveAccounts(
  mnemonic: string,
  count: number,
): { eip155: LocalAccount[]; solana: SolanaAccount[] } {
  const eip155 = Array.from({ length: count }, (_, addressIndex) =>
    mnemonicToAccount(mnemonic, { addressIndex }),
  );
  const seed = mnemonicToSeedSync(mnemonic);
  const solana = Array.from({ length: count }, (_, index) => {
    const privateKey = deriveEd25519PrivateKey(seed, `m/44'/501'/${index}'/0'`);
    const account = solanaAccountFromPrivateKey(privateKey);
    privateKey.fill(0);
    return account;
  });
  seed.fill(0);
  return { eip155, solana };
}

/**
 * The wallet's accounts: from a BIP-39 mnemonic (the dev mnemonic by default), or none with
 * `mnemonic: null` (a wallet waiting for its user to log in). Keys stay in memory, never logged.
 */
export function createKeyring(options: { mnemonic?: string | null; accountCount?: number } = {}): Keyring {
  const initial =
    options.mnemonic === null
      ? { eip155: [], solana: [] }
      : deriveAccounts(options.mnemonic ?? DEV_MNEMONIC, options.accountCount ?? 5);
  let eip155: readonly LocalAccount[] = initial.eip155;
  let solana: readonly SolanaAccount[] = initial.solana;
  return {
    get eip155() {
      return eip155;
    },
    get solana() {
      return solana;
    },
    solanaAccount: (address) => solana.find((account) => account.address === address),
    addresses: (namespace) => {
      if (namespace === 'eip155') return eip155.map((account) => account.address);
      if (namespace === 'solana') return solana.map((account) => account.address);
      return [];
    },
    eip155Account: (address) =>
      eip155.find((account) => account.address.toLowerCase() === address.toLowerCase()),
    replace(namespace, accounts) {
      if (namespace === 'eip155') eip155 = [...(accounts as readonly LocalAccount[])];
      else if (namespace === 'solana') solana = [...(accounts as readonly SolanaAccount[])];
      else throw new Error(`the wallet holds accounts in eip155 and solana, not ${String(namespace)}`);
    },
  };
}
