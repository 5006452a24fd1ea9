// What `onLogin` hears after each completed login: who logged in to which app, and the accounts
// the login's keys control. Never a key or a token.

import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { getAddressDecoder } from '@solana/kit';
import { publicKeyToAddress } from 'viem/accounts';

/** The accounts of one key: its EVM address and its Solana address. */
export interface LoginAccount {
  /** `app`: the app-scoped key (`getPrivKey()`); `core`: the user's key in every app (`useCoreKitKey`). */
  key: 'app' | 'core';
  /** EIP-55 address of the secp256k1 key. */
  eip155: string;
  /** base58 address of the ed25519 key. */
  solana: string;
}

/** A completed login, as `onLogin` receives it. */
export interface LoginEvent {
  clientId: string;
  network: string;
  /** The key's verifier and the user's id there. */
  verifier: string;
  verifierId: string;
  /** The app key's and the core key's accounts (for an MFA user, those whose public keys are recorded). */
  accounts: LoginAccount[];
}

/** Public keys (hex): secp256k1 (compressed or not) and ed25519. */
export interface PublicKeyPair {
  secp: string;
  ed: string;
}

/** The EVM and Solana addresses of a key pair's public keys. */
export function accountOf(key: LoginAccount['key'], keys: PublicKeyPair): LoginAccount {
  const uncompressed = secp256k1.Point.fromHex(keys.secp).toHex(false);
  return {
    key,
    eip155: publicKeyToAddress(`0x${uncompressed}`),
    solana: getAddressDecoder().decode(hexToBytes(keys.ed)),
  };
}
