import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { mnemonicToSeedSync } from '@scure/bip39';
import type { HDAccount } from 'viem/accounts';
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

export type Keyring = {
  /** EVM accounts derived at m/44'/60'/0'/0/i. */
  eip155: HDAccount[];
  /** Solana accounts derived at m/44'/501'/i'/0' (SLIP-0010, as Phantom and Solflare do). */
  solana: SolanaAccount[];
  /** The Solana account for a base58 address, if held. */
  solanaAccount: (address: string) => SolanaAccount | undefined;
  /** The addresses held in a namespace. */
  addresses: (namespace: string) => string[];
  /** The EVM account for an address (any case), if held. */
  eip155Account: (address: string) => HDAccount | undefined;
};

/** Derives the wallet's accounts from a BIP-39 mnemonic. Keys stay in memory and are never logged. */
export function createKeyring(options: { mnemonic?: string; accountCount?: number } = {}): Keyring {
  const mnemonic = options.mnemonic ?? DEV_MNEMONIC;
  const count = options.accountCount ?? 5;
  const eip155 = Array.from({ length: count }, (_, addressIndex) =>
    mnemonicToAccount(mnemonic, { addressIndex }),
  );
  const seed = mnemonicToSeedSync(mnemonic);
  const solana = Array.from({ length: count }, (_, index): SolanaAccount => {
    const privateKey = deriveEd25519PrivateKey(seed, `m/44'/501'/${index}'/0'`);
    const publicKey = ed25519.getPublicKey(privateKey);
    return {
      address: base58.encode(publicKey),
      publicKey,
      sign: (message) => ed25519.sign(message, privateKey),
    };
  });
  seed.fill(0);
  return {
    eip155,
    solana,
    solanaAccount: (address) => solana.find((account) => account.address === address),
    addresses: (namespace) => {
      if (namespace === 'eip155') return eip155.map((account) => account.address);
      if (namespace === 'solana') return solana.map((account) => account.address);
      return [];
    },
    eip155Account: (address) =>
      eip155.find((account) => account.address.toLowerCase() === address.toLowerCase()),
  };
}
