import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gcm } from '@noble/ciphers/aes.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';

/**
 * Envelope encryption: each secret is sealed with its own random data key (AES-256-GCM), and the
 * data key is sealed with the key-encryption key derived from the master key. Both seals bind the
 * record id as associated data, so a ciphertext moved to another row does not open.
 */
export class Envelope {
  private readonly kek: Uint8Array;
  private readonly macKey: Uint8Array;
  constructor(masterKey: Uint8Array) {
    if (masterKey.length < 32) throw new Error('the auth master key must be at least 32 bytes');
    this.kek = hkdf(sha256, masterKey, utf8ToBytes('portico-auth'), utf8ToBytes('kek-v1'), 32);
    this.macKey = hkdf(sha256, masterKey, utf8ToBytes('portico-auth'), utf8ToBytes('mac-v1'), 32);
  }

  /** HMAC-SHA256 of `message` under a key derived from the master key: a name nobody else can compute. */
  mac(message: string): Uint8Array {
    return hmac(sha256, this.macKey, utf8ToBytes(message));
  }

  seal(id: string, plaintext: Uint8Array): string {
    const aad = utf8ToBytes(id);
    const dek = randomBytes(32);
    const n1 = randomBytes(12);
    const n2 = randomBytes(12);
    const ct = gcm(dek, n1, aad).encrypt(plaintext);
    const wdek = gcm(this.kek, n2, aad).encrypt(dek);
    dek.fill(0);
    return JSON.stringify({
      v: 1,
      n1: bytesToHex(n1),
      ct: bytesToHex(ct),
      n2: bytesToHex(n2),
      wdek: bytesToHex(wdek),
    });
  }

  open(id: string, sealed: string): Uint8Array {
    const s = JSON.parse(sealed) as { v: number; n1: string; ct: string; n2: string; wdek: string };
    if (s.v !== 1) throw new Error(`unknown envelope version ${s.v}`);
    const aad = utf8ToBytes(id);
    const dek = gcm(this.kek, hexToBytes(s.n2), aad).decrypt(hexToBytes(s.wdek));
    const out = gcm(dek, hexToBytes(s.n1), aad).decrypt(hexToBytes(s.ct));
    dek.fill(0);
    return out;
  }
}

/**
 * The master key: `masterKey` (64 hex characters, or a passphrase of 32+ characters), else
 * `PORTICO_AUTH_MASTER_KEY`, else — development only — a random key kept in `<dataDir>/master.key`
 * (mode 0600), which is reported through `onLog`.
 */
export function resolveMasterKey(
  masterKey: string | undefined,
  dataDir: string,
  onLog: (line: string) => void,
): Uint8Array {
  const given = masterKey ?? process.env.PORTICO_AUTH_MASTER_KEY;
  if (given) {
    if (/^[0-9a-fA-F]{64}$/.test(given)) return hexToBytes(given);
    if (given.length >= 32) return sha256(utf8ToBytes(given));
    throw new Error('auth masterKey: give 64 hex characters or a passphrase of at least 32 characters');
  }
  const file = join(dataDir, 'master.key');
  if (existsSync(file)) return hexToBytes(readFileSync(file, 'utf8').trim());
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, bytesToHex(key), { mode: 0o600 });
  onLog(
    `auth: no master key configured; generated a development key in ${file} (set PORTICO_AUTH_MASTER_KEY in production)`,
  );
  return key;
}
