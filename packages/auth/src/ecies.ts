import { cbc } from '@noble/ciphers/aes.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/** ECIES ciphertext as the session store keeps it (all hex). */
export interface EciesPayload {
  iv: string;
  ephemPublicKey: string;
  ciphertext: string;
  mac: string;
}

export interface EciesOptions {
  /** Fixed ephemeral key and IV, for test vectors only. */
  ephemPrivateKey?: Uint8Array;
  iv?: Uint8Array;
}

/** Shared x-coordinate; `padded` keeps leading zero bytes (eccrypto strips them when encrypting). */
function sharedX(privateKey: Uint8Array, publicKey: Uint8Array, padded: boolean): Uint8Array {
  const x = secp256k1.getSharedSecret(privateKey, publicKey, true).slice(1);
  if (padded) return x;
  let i = 0;
  while (i < x.length - 1 && x[i] === 0) i += 1;
  return x.slice(i);
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i += 1) diff |= a[i] ^ b[i];
  return diff === 0;
}

/**
 * ECIES as eccrypto does it: ECDH on secp256k1 → SHA-512 → AES-256-CBC key ‖ HMAC-SHA256 key, MAC over
 * `iv ‖ ephemPublicKey ‖ ciphertext`.
 */
export function eciesEncrypt(
  publicKey: Uint8Array,
  message: Uint8Array,
  opts: EciesOptions = {},
): EciesPayload {
  const ephemPrivateKey = opts.ephemPrivateKey ?? secp256k1.utils.randomSecretKey();
  const ephemPublicKey = secp256k1.getPublicKey(ephemPrivateKey, false);
  const hash = sha512(sharedX(ephemPrivateKey, publicKey, false));
  const iv = opts.iv ?? randomBytes(16);
  const ciphertext = cbc(hash.slice(0, 32), iv).encrypt(message);
  const mac = hmac(sha256, hash.slice(32), concatBytes(iv, ephemPublicKey, ciphertext));
  return {
    iv: bytesToHex(iv),
    ephemPublicKey: bytesToHex(ephemPublicKey),
    ciphertext: bytesToHex(ciphertext),
    mac: bytesToHex(mac),
  };
}

/** Decrypts an ECIES payload; accepts both the unpadded and the padded shared secret. */
export function eciesDecrypt(privateKey: Uint8Array, payload: EciesPayload): Uint8Array {
  const iv = hexToBytes(payload.iv);
  const ephemPublicKey = hexToBytes(payload.ephemPublicKey);
  const ciphertext = hexToBytes(payload.ciphertext);
  const mac = hexToBytes(payload.mac);
  for (const padded of [false, true]) {
    const hash = sha512(sharedX(privateKey, ephemPublicKey, padded));
    const expected = hmac(sha256, hash.slice(32), concatBytes(iv, ephemPublicKey, ciphertext));
    if (constantTimeEqual(expected, mac)) return cbc(hash.slice(0, 32), iv).decrypt(ciphertext);
  }
  throw new Error('ECIES: bad MAC');
}

/** Encrypts a JSON value to the public key of `privKeyHex`'s holder; returns the stored string form. */
export function encryptJsonTo(publicKeyHex: string, value: unknown): string {
  return JSON.stringify(eciesEncrypt(hexToBytes(publicKeyHex), utf8ToBytes(JSON.stringify(value))));
}

/** Decrypts the stored string form with the session (or login) private key. */
export function decryptJson<T>(privKeyHex: string, stored: string): T {
  const payload = JSON.parse(stored) as EciesPayload;
  return JSON.parse(new TextDecoder().decode(eciesDecrypt(hexToBytes(privKeyHex), payload))) as T;
}

/** Uncompressed public key (hex) that names a session or login request in the store. */
export function storeKeyOf(privKeyHex: string): string {
  return bytesToHex(secp256k1.getPublicKey(hexToBytes(privKeyHex), false));
}

/** Compact ECDSA signature (hex) over sha256(message), proving the writer holds the key. */
export function signStoreMessage(privKeyHex: string, message: string): string {
  return bytesToHex(secp256k1.sign(utf8ToBytes(message), hexToBytes(privKeyHex)));
}

/** Verifies a `signStoreMessage` signature against the store key (uncompressed public key hex). */
export function verifyStoreMessage(storeKeyHex: string, message: string, signatureHex: string): boolean {
  try {
    return secp256k1.verify(hexToBytes(signatureHex), utf8ToBytes(message), hexToBytes(storeKeyHex));
  } catch {
    return false;
  }
}

/** What the coreKitKey signs to prove a session passed its second factor (the service checks it). */
export function mfaProofMessage(path: string, sessionKey: string, payloadJson: string): string {
  return `mfa-proof:${path}:${sessionKey}:${payloadJson}`;
}
