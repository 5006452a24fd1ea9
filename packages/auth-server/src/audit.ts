// The audit trail: security-relevant events appended to the service's store, each entry chained to
// the one before by hash, so a deleted or edited row breaks the chain at that entry. Entries name
// who and what (user id, verifier, client id, network, address, outcome), never a token, key,
// share, password or phrase: `detail` takes only the fields listed in `AuditDetail`.
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { AuditWebhooks } from './audit-webhooks.ts';
import type { AuditFilter, AuditRow, AuthStore } from './store.ts';
import { AUDIT_GENESIS } from './store.ts';
import { canonicalJson } from './verifiers/replay-mark.ts';

export const AUDIT_EVENTS = [
  'login',
  'mfa.setup',
  'mfa.factor',
  'attempts.locked',
  'attempts.unlocked',
  'mfa.device.added',
  'mfa.device.revoked',
  'session.revoked',
  'session.reused',
  'passkey.registered',
  'passkey.login',
  'passkey.removed',
  'account.opened',
  'key.exported',
] as const;
export type AuditEvent = (typeof AUDIT_EVENTS)[number];

/** The only fields an entry may carry. */
export interface AuditDetail {
  outcome?: 'success' | 'failure' | 'refused';
  verifier?: string;
  clientId?: string;
  network?: string;
  address?: string;
  /** Which factor (`password`, `backup phrase`, `social backup`, `device`...), never its value. */
  factor?: string;
  /** Why a failure failed, in the words the client was told. */
  reason?: string;
  deviceId?: string;
  /** For lockouts: until when (ms) and what was locked (`user` or `address`). */
  until?: number;
  subject?: string;
  /** Who unlocked or ended (`operator`, `user`). */
  by?: string;
  /** A passkey's credential id (base64url; public, names the passkey, never its key). */
  credential?: string;
  /** A passkey registration: `link` (to the signed-in account) or `new` (a fresh account). */
  mode?: string;
}

const DETAIL_FIELDS: ReadonlyArray<keyof AuditDetail> = [
  'outcome',
  'verifier',
  'clientId',
  'network',
  'address',
  'factor',
  'reason',
  'deviceId',
  'until',
  'subject',
  'by',
  'credential',
  'mode',
];

/** The entry's hash: the previous hash and the entry's own fields, as canonical JSON. */
export function auditHash(
  prevHash: string,
  entry: { seq: number; at: number; event: string; userId?: string; detail: string },
): string {
  const body = canonicalJson({
    seq: entry.seq,
    at: entry.at,
    event: entry.event,
    userId: entry.userId ?? null,
    detail: entry.detail,
  });
  return bytesToHex(sha256(utf8ToBytes(`${prevHash}\n${body}`)));
}

/** The first entry that does not follow from the one before, or undefined when the chain holds. */
export interface AuditBreak {
  seq: number;
  reason: string;
}

/** Walks the whole chain from the first entry. */
export function verifyAuditChain(rows: readonly AuditRow[]): { entries: number; broken?: AuditBreak } {
  let prevHash = AUDIT_GENESIS;
  let expectedSeq = 1;
  for (const row of rows) {
    if (row.seq !== expectedSeq) {
      return {
        entries: rows.length,
        broken: {
          seq: expectedSeq,
          reason: `entry ${expectedSeq} is missing (the next one is ${row.seq}): deleted`,
        },
      };
    }
    if (row.prevHash !== prevHash) {
      return {
        entries: rows.length,
        broken: { seq: row.seq, reason: `entry ${row.seq} does not follow entry ${row.seq - 1}` },
      };
    }
    if (auditHash(prevHash, row) !== row.hash) {
      return {
        entries: rows.length,
        broken: { seq: row.seq, reason: `entry ${row.seq} was changed after it was written` },
      };
    }
    prevHash = row.hash;
    expectedSeq++;
  }
  return { entries: rows.length };
}

export class AuditLog {
  constructor(
    private readonly store: AuthStore,
    private readonly now: () => number,
    private readonly log: (line: string) => void,
    private readonly webhooks?: AuditWebhooks,
  ) {}

  /** Appends an entry; a failure to write is logged and never fails the request it records. */
  async record(event: AuditEvent, userId: string | undefined, detail: AuditDetail): Promise<void> {
    const picked: Record<string, unknown> = {};
    for (const field of DETAIL_FIELDS) if (detail[field] !== undefined) picked[field] = detail[field];
    const entry = { at: this.now(), event, userId, detail: canonicalJson(picked) };
    try {
      const row = await this.store.appendAudit(entry, (prevHash, seq) =>
        auditHash(prevHash, { ...entry, seq }),
      );
      this.webhooks?.push({
        seq: row.seq,
        at: new Date(row.at).toISOString(),
        event: row.event,
        user: row.userId,
        detail: picked,
        hash: row.hash,
      });
    } catch (err) {
      this.log(`auth: audit entry ${event} not written: ${(err as Error).message}`);
    }
  }

  read(filter: AuditFilter): Promise<AuditRow[]> {
    return this.store.readAudit(filter);
  }

  async verify(): Promise<{ entries: number; broken?: AuditBreak }> {
    return verifyAuditChain(await this.store.readAudit({}));
  }
}
