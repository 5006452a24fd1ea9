import { hash, randomBytes } from 'node:crypto';

/** A new API key: 32 lowercase hex characters (128 bits), the shape Infura users know. */
export function generateApiKey(): string {
  return randomBytes(16).toString('hex');
}

/** Keys are stored only as this SHA-256 digest (they are random, so no slow hash is needed). */
export function hashApiKey(key: string): string {
  // The one-shot hash: on every request, and a third of createHash().update().digest()'s cost.
  return hash('sha256', key, 'hex');
}

export function generateKeyId(): string {
  return `key_${randomBytes(6).toString('hex')}`;
}

/** The shown part of a key in listings: enough to recognise it, too little to use it. */
export function keyPrefix(key: string): string {
  return key.slice(0, 6);
}
