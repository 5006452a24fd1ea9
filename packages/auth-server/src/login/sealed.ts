// The login path's records between requests (flows, pending MFA steps, grants, recoveries) are
// JSON sealed by the envelope under their store name, so a record read under another name fails.
import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { Envelope } from '../envelope.ts';

export function sealJson(envelope: Envelope, name: string, value: unknown): string {
  return envelope.seal(name, utf8ToBytes(JSON.stringify(value)));
}

export function openJson<T>(envelope: Envelope, name: string, sealed: string): T {
  return JSON.parse(new TextDecoder().decode(envelope.open(name, sealed))) as T;
}
