import { providerErrors } from '@metamask/rpc-errors';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { type Address, getBase58Decoder, type SignatureBytes } from '@solana/kit';

/** The user's Solana key: its address and a signing function. */
export interface SolanaKeypair {
  readonly address: Address;
  sign(bytes: Uint8Array): SignatureBytes;
}

/**
 * A keypair from `getEd25519PrivKey()`'s 128 hex (`seed ‖ publicKey`). Signing uses @noble/curves
 * rather than WebCrypto's Ed25519, which older Safari and Firefox lack and which would make the
 * 32-byte seed an extractable CryptoKey to import.
 */
export function keypairFromEd25519PrivKey(hex: string): SolanaKeypair {
  if (!/^[0-9a-fA-F]{128}$/.test(hex)) {
    throw providerErrors.disconnected({
      message: 'The key is not an ed25519 key (128 hex: seed ‖ public key)',
    });
  }
  const seed = hexToBytes(hex.slice(0, 64));
  const publicKey = ed25519.getPublicKey(seed);
  if (bytesToHex(publicKey) !== hex.slice(64).toLowerCase()) {
    throw providerErrors.disconnected({ message: 'The ed25519 key’s public half does not match its seed' });
  }
  return {
    address: getBase58Decoder().decode(publicKey) as Address,
    sign: (bytes) => ed25519.sign(bytes, seed) as SignatureBytes,
  };
}
