import type { HDAccount } from 'viem/accounts';
import { mnemonicToAccount } from 'viem/accounts';

/** anvil's and Hardhat's well-known development mnemonic: never hold real funds with it. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

export type Keyring = {
  /** EVM accounts derived at m/44'/60'/0'/0/i. */
  eip155: HDAccount[];
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
  return {
    eip155,
    addresses: (namespace) => (namespace === 'eip155' ? eip155.map((account) => account.address) : []),
    eip155Account: (address) =>
      eip155.find((account) => account.address.toLowerCase() === address.toLowerCase()),
  };
}
