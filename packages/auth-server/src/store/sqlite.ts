import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrateSqliteSchema } from '@portico/store-schema';
import Database from 'libsql';
import {
  type AttemptDbRow,
  AUTH_SCHEMA,
  type AuditDbRow,
  auditWhere,
  beginAttemptSql,
  CHAIN_OF_KEY_SQL,
  type ChainDbRow,
  chainOfKeyResult,
  LIST_CHAINS_SQL,
  type PasskeyDbRow,
  PURGE_CHAINS_SQL,
  PUT_PASSKEY_SQL,
  passkeyParams,
  RotateRefused,
  type Row,
  toAttempt,
  toAudit,
  toChain,
  toPasskey,
  USE_PASSKEY_SQL,
} from './sql.ts';
import {
  type AttemptRow,
  type AttemptRule,
  type AttemptStart,
  AUDIT_GENESIS,
  type AuditFilter,
  type AuditInput,
  type AuditRow,
  type AuthStore,
  type ChainRow,
  type LiveChain,
  type PasskeyRow,
  type SessionEntry,
} from './types.ts';

/** SQLite through libsql, one file in the data directory. */
export class SqliteStore implements AuthStore {
  private readonly db: Database.Database;
  constructor(dataDir: string) {
    mkdirSync(dataDir, { recursive: true });
    const path = join(dataDir, 'auth.db');
    this.db = new Database(path);
    try {
      this.db.exec('PRAGMA journal_mode = WAL');
      migrateSqliteSchema(this.db, { store: `the auth service's store ${path}`, steps: AUTH_SCHEMA });
    } catch (error) {
      this.db.close();
      throw error;
    }
  }
  async putSession(key: string, data: string, expiresAt: number): Promise<boolean> {
    const r = this.db
      .prepare(
        'INSERT INTO auth_sessions (key, data, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING',
      )
      .run(key, data, expiresAt);
    return r.changes === 1;
  }
  async getSession(key: string, now: number): Promise<string | undefined> {
    return (await this.getSessionEntry(key, now))?.data;
  }
  async getSessionEntry(key: string, now: number): Promise<SessionEntry | undefined> {
    const row = this.db
      .prepare('SELECT data, expires_at FROM auth_sessions WHERE key = ? AND expires_at > ?')
      .get(key, now) as Row | undefined;
    return row?.data === undefined ? undefined : { data: row.data, expiresAt: Number(row.expires_at) };
  }
  async deleteSession(key: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM auth_sessions WHERE key = ?').run(key).changes === 1;
  }
  async getCoreKey(id: string): Promise<string | undefined> {
    const row = this.db.prepare('SELECT wrapped FROM auth_core_keys WHERE id = ?').get(id) as Row | undefined;
    return row?.wrapped;
  }
  async putCoreKeyIfAbsent(id: string, wrapped: string, now: number): Promise<string> {
    this.db
      .prepare(
        'INSERT INTO auth_core_keys (id, wrapped, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
      )
      .run(id, wrapped, now);
    return (await this.getCoreKey(id))!;
  }
  async markTokenUsed(hash: string, expiresAt: number): Promise<boolean> {
    const r = this.db
      .prepare('INSERT INTO auth_used_tokens (hash, expires_at) VALUES (?, ?) ON CONFLICT (hash) DO NOTHING')
      .run(hash, expiresAt);
    return r.changes === 1;
  }
  async getValue(name: string): Promise<string | undefined> {
    const row = this.db.prepare('SELECT value FROM auth_values WHERE name = ?').get(name) as Row | undefined;
    return row?.value;
  }
  async putValueIfAbsent(name: string, value: string): Promise<string> {
    this.db
      .prepare('INSERT INTO auth_values (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
      .run(name, value);
    return (await this.getValue(name))!;
  }
  async setValue(name: string, value: string): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO auth_values (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      )
      .run(name, value);
  }
  async replaceValue(name: string, expected: string, value: string): Promise<boolean> {
    return (
      this.db
        .prepare('UPDATE auth_values SET value = ? WHERE name = ? AND value = ?')
        .run(value, name, expected).changes === 1
    );
  }
  async deleteCoreKey(id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM auth_core_keys WHERE id = ?').run(id).changes === 1;
  }
  async purge(now: number): Promise<void> {
    this.db.prepare('DELETE FROM auth_sessions WHERE expires_at <= ?').run(now);
    this.db.prepare('DELETE FROM auth_used_tokens WHERE expires_at <= ?').run(now);
    for (const sql of PURGE_CHAINS_SQL) this.db.prepare(sql).run();
  }
  async createChain(c: ChainRow): Promise<void> {
    this.db
      .transaction(() => {
        this.db
          .prepare(
            'INSERT INTO auth_session_chains (id, user_id, client_id, current_key, idle_ms, created_at, last_used, ends_at, claims, device) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            c.id,
            c.userId,
            c.clientId,
            c.currentKey,
            c.idleMs,
            c.createdAt,
            c.lastUsed,
            c.endsAt,
            c.claims,
            c.device ?? null,
          );
        this.db
          .prepare('INSERT INTO auth_session_keys (key, chain_id) VALUES (?, ?)')
          .run(c.currentKey, c.id);
      })
      .immediate();
  }
  async chainOfKey(key: string) {
    return chainOfKeyResult(this.db.prepare(CHAIN_OF_KEY_SQL(() => '?')).get(key) as ChainDbRow | undefined);
  }
  async rotateChain(
    chainId: string,
    oldKey: string,
    newKey: string,
    data: string,
    now: number,
    expiresAt: number,
    token: string,
  ): Promise<boolean> {
    const rotate = this.db.transaction(() => {
      const gone = this.db
        .prepare('DELETE FROM auth_sessions WHERE key = ? AND expires_at > ?')
        .run(oldKey, now);
      const moved = this.db
        .prepare(
          'UPDATE auth_session_chains SET current_key = ?, last_used = ?, token = ? WHERE id = ? AND current_key = ? AND revoked_at IS NULL',
        )
        .run(newKey, now, token, chainId, oldKey);
      if (gone.changes !== 1 || moved.changes !== 1) throw new RotateRefused();
      this.db
        .prepare('UPDATE auth_session_keys SET next_key = ?, rotated_at = ? WHERE key = ?')
        .run(newKey, now, oldKey);
      this.db.prepare('INSERT INTO auth_session_keys (key, chain_id) VALUES (?, ?)').run(newKey, chainId);
      this.db
        .prepare('INSERT INTO auth_sessions (key, data, expires_at) VALUES (?, ?, ?)')
        .run(newKey, data, expiresAt);
    });
    try {
      rotate.immediate();
      return true;
    } catch (error) {
      if (error instanceof RotateRefused) return false;
      throw error;
    }
  }
  async revokeChain(chainId: string, now: number): Promise<string | undefined> {
    const revoke = this.db.transaction(() => {
      const row = this.db
        .prepare(
          'UPDATE auth_session_chains SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL RETURNING current_key',
        )
        .get(now, chainId) as { current_key: string } | undefined;
      if (row) this.db.prepare('DELETE FROM auth_sessions WHERE key = ?').run(row.current_key);
      return row?.current_key;
    });
    return revoke.immediate();
  }
  async listChains(userId: string, now: number): Promise<LiveChain[]> {
    const rows = this.db.prepare(LIST_CHAINS_SQL(() => '?')).all(userId, now) as ChainDbRow[];
    return rows.map((r) => ({ ...toChain(r), expiresAt: Number(r.expires_at) }));
  }
  async beginAttempt(subject: string, now: number, rule: AttemptRule): Promise<AttemptStart> {
    const row = this.db.prepare(beginAttemptSql((n) => `?${n}`, rule)).get(subject, now, rule.resetAfterMs) as
      | AttemptDbRow
      | undefined;
    if (row) return { counted: true, failures: Number(row.failures), notBefore: Number(row.not_before) };
    return { counted: false, notBefore: (await this.getAttempts(subject))?.notBefore ?? now };
  }
  async uncountAttempt(subject: string, startedWait?: number): Promise<void> {
    this.db
      .prepare(
        `UPDATE auth_attempts SET failures = max(failures - 1, 0),
         not_before = CASE WHEN not_before = ?2 THEN 0 ELSE not_before END WHERE subject = ?1`,
      )
      .run(subject, startedWait ?? -1);
  }
  async getAttempts(subject: string): Promise<AttemptRow | undefined> {
    const row = this.db.prepare('SELECT * FROM auth_attempts WHERE subject = ?').get(subject) as
      | AttemptDbRow
      | undefined;
    return row && toAttempt(row);
  }
  async clearAttempts(subject: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM auth_attempts WHERE subject = ?').run(subject).changes === 1;
  }
  async lockedSubjects(now: number): Promise<AttemptRow[]> {
    const rows = this.db
      .prepare('SELECT * FROM auth_attempts WHERE not_before > ? ORDER BY not_before DESC')
      .all(now) as AttemptDbRow[];
    return rows.map(toAttempt);
  }
  async appendAudit(
    entry: AuditInput,
    chain: (previousHash: string, seq: number) => string,
  ): Promise<AuditRow> {
    const append = this.db.transaction(() => {
      const last = this.db.prepare('SELECT seq, hash FROM auth_audit ORDER BY seq DESC LIMIT 1').get() as
        | { seq: number; hash: string }
        | undefined;
      const seq = Number(last?.seq ?? 0) + 1;
      const prevHash = last?.hash ?? AUDIT_GENESIS;
      const hash = chain(prevHash, seq);
      this.db
        .prepare(
          'INSERT INTO auth_audit (seq, at, event, user_id, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?)',
        )
        .run(seq, entry.at, entry.event, entry.userId ?? null, entry.detail, prevHash, hash);
      return { ...entry, seq, prevHash, hash };
    });
    return append.immediate();
  }
  async readAudit(filter: AuditFilter): Promise<AuditRow[]> {
    const { sql, params } = auditWhere(filter, () => '?');
    return (this.db.prepare(sql).all(...params) as AuditDbRow[]).map(toAudit);
  }
  async putPasskey(row: PasskeyRow): Promise<boolean> {
    const r = this.db.prepare(PUT_PASSKEY_SQL((n) => `?${n}`)).run(...passkeyParams(row));
    return r.changes === 1;
  }
  async getPasskey(credentialId: string): Promise<PasskeyRow | undefined> {
    const row = this.db.prepare('SELECT * FROM auth_passkeys WHERE credential_id = ?').get(credentialId) as
      | PasskeyDbRow
      | undefined;
    return row ? toPasskey(row) : undefined;
  }
  async listPasskeys(userHandle: string): Promise<PasskeyRow[]> {
    const rows = this.db
      .prepare('SELECT * FROM auth_passkeys WHERE user_handle = ? ORDER BY created_at, credential_id')
      .all(userHandle) as PasskeyDbRow[];
    return rows.map(toPasskey);
  }
  async usePasskey(credentialId: string, counter: number, next: number, now: number): Promise<boolean> {
    return (
      this.db.prepare(USE_PASSKEY_SQL((n) => `?${n}`)).run(credentialId, counter, next, now).changes === 1
    );
  }
  async deletePasskey(credentialId: string, userHandle: string): Promise<boolean> {
    const r = this.db
      .prepare('DELETE FROM auth_passkeys WHERE credential_id = ? AND user_handle = ?')
      .run(credentialId, userHandle);
    return r.changes === 1;
  }
  async close(): Promise<void> {
    this.db.close();
  }
}
