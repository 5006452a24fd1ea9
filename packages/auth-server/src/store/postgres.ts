import { migratePostgresSchema } from '@portico/store-schema';
import pg from 'pg';
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

/**
 * PostgreSQL, for several service instances sharing sessions, keys and replay marks. Every
 * statement stands alone (no session state), so the pool may go through PgBouncer in transaction
 * mode. `PostgresStore.open` migrates before it answers, and refuses a newer schema.
 */
export class PostgresStore implements AuthStore {
  private readonly pool: pg.Pool;
  private readonly ready: Promise<void>;
  constructor(connectionString: string) {
    const pool = new pg.Pool({ connectionString, max: 4 });
    // An idle connection the server ended (a restart, a failover, PgBouncer, an administrator) is
    // dropped by the pool and the next query opens another; unheard, the event would end the process.
    pool.on('error', () => {});
    this.pool = pool;
    this.ready = migratePostgresSchema(pool, {
      store: "the auth service's store",
      table: 'auth_migrations',
      steps: AUTH_SCHEMA,
    }).then(() => {});
  }

  /** A store whose schema is up to date (migrated now, or refused with `SchemaTooNewError`). */
  static async open(connectionString: string): Promise<PostgresStore> {
    const store = new PostgresStore(connectionString);
    try {
      await store.ready;
    } catch (error) {
      await store.pool.end().catch(() => {});
      throw error;
    }
    return store;
  }
  private async q(sql: string, params: unknown[]): Promise<pg.QueryResult<Row>> {
    await this.ready;
    return this.pool.query<Row>(sql, params);
  }
  async putSession(key: string, data: string, expiresAt: number): Promise<boolean> {
    const r = await this.q(
      'INSERT INTO auth_sessions (key, data, expires_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO NOTHING',
      [key, data, expiresAt],
    );
    return r.rowCount === 1;
  }
  async getSession(key: string, now: number): Promise<string | undefined> {
    return (await this.getSessionEntry(key, now))?.data;
  }
  async getSessionEntry(key: string, now: number): Promise<SessionEntry | undefined> {
    const r = await this.q('SELECT data, expires_at FROM auth_sessions WHERE key = $1 AND expires_at > $2', [
      key,
      now,
    ]);
    const row = r.rows[0];
    return row?.data === undefined ? undefined : { data: row.data, expiresAt: Number(row.expires_at) };
  }
  async deleteSession(key: string): Promise<boolean> {
    return (await this.q('DELETE FROM auth_sessions WHERE key = $1', [key])).rowCount === 1;
  }
  async getCoreKey(id: string): Promise<string | undefined> {
    return (await this.q('SELECT wrapped FROM auth_core_keys WHERE id = $1', [id])).rows[0]?.wrapped;
  }
  async putCoreKeyIfAbsent(id: string, wrapped: string, now: number): Promise<string> {
    await this.q(
      'INSERT INTO auth_core_keys (id, wrapped, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
      [id, wrapped, now],
    );
    return (await this.getCoreKey(id))!;
  }
  async markTokenUsed(hash: string, expiresAt: number): Promise<boolean> {
    const r = await this.q(
      'INSERT INTO auth_used_tokens (hash, expires_at) VALUES ($1, $2) ON CONFLICT (hash) DO NOTHING',
      [hash, expiresAt],
    );
    return r.rowCount === 1;
  }
  async getValue(name: string): Promise<string | undefined> {
    return (await this.q('SELECT value FROM auth_values WHERE name = $1', [name])).rows[0]?.value;
  }
  async putValueIfAbsent(name: string, value: string): Promise<string> {
    await this.q('INSERT INTO auth_values (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
      name,
      value,
    ]);
    return (await this.getValue(name))!;
  }
  async setValue(name: string, value: string): Promise<void> {
    await this.q(
      'INSERT INTO auth_values (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      [name, value],
    );
  }
  async replaceValue(name: string, expected: string, value: string): Promise<boolean> {
    const r = await this.q('UPDATE auth_values SET value = $1 WHERE name = $2 AND value = $3', [
      value,
      name,
      expected,
    ]);
    return r.rowCount === 1;
  }
  async deleteCoreKey(id: string): Promise<boolean> {
    return (await this.q('DELETE FROM auth_core_keys WHERE id = $1', [id])).rowCount === 1;
  }
  async purge(now: number): Promise<void> {
    await this.q('DELETE FROM auth_sessions WHERE expires_at <= $1', [now]);
    await this.q('DELETE FROM auth_used_tokens WHERE expires_at <= $1', [now]);
    for (const sql of PURGE_CHAINS_SQL) await this.q(sql, []);
  }
  /** Runs `work` in one transaction on one connection; rolled back when it throws. */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.ready;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
  async createChain(c: ChainRow): Promise<void> {
    await this.transaction(async (db) => {
      await db.query(
        'INSERT INTO auth_session_chains (id, user_id, client_id, current_key, idle_ms, created_at, last_used, ends_at, claims, device) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [
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
        ],
      );
      await db.query('INSERT INTO auth_session_keys (key, chain_id) VALUES ($1, $2)', [c.currentKey, c.id]);
    });
  }
  async chainOfKey(key: string) {
    await this.ready;
    const r = await this.pool.query<ChainDbRow>(
      CHAIN_OF_KEY_SQL((n) => `$${n}`),
      [key],
    );
    return chainOfKeyResult(r.rows[0]);
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
    try {
      return await this.transaction(async (db) => {
        // The chain row first: a second renewal of the same key waits for this one, then finds
        // the key is no longer current.
        const moved = await db.query(
          'UPDATE auth_session_chains SET current_key = $1, last_used = $2, token = $5 WHERE id = $3 AND current_key = $4 AND revoked_at IS NULL',
          [newKey, now, chainId, oldKey, token],
        );
        const gone = await db.query('DELETE FROM auth_sessions WHERE key = $1 AND expires_at > $2', [
          oldKey,
          now,
        ]);
        if (gone.rowCount !== 1 || moved.rowCount !== 1) throw new RotateRefused();
        await db.query('UPDATE auth_session_keys SET next_key = $1, rotated_at = $2 WHERE key = $3', [
          newKey,
          now,
          oldKey,
        ]);
        await db.query('INSERT INTO auth_session_keys (key, chain_id) VALUES ($1, $2)', [newKey, chainId]);
        await db.query('INSERT INTO auth_sessions (key, data, expires_at) VALUES ($1, $2, $3)', [
          newKey,
          data,
          expiresAt,
        ]);
        return true;
      });
    } catch (error) {
      if (error instanceof RotateRefused) return false;
      throw error;
    }
  }
  async revokeChain(chainId: string, now: number): Promise<string | undefined> {
    return this.transaction(async (db) => {
      const r = await db.query<{ current_key: string }>(
        'UPDATE auth_session_chains SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING current_key',
        [now, chainId],
      );
      const key = r.rows[0]?.current_key;
      if (key) await db.query('DELETE FROM auth_sessions WHERE key = $1', [key]);
      return key;
    });
  }
  async listChains(userId: string, now: number): Promise<LiveChain[]> {
    await this.ready;
    const r = await this.pool.query<ChainDbRow>(
      LIST_CHAINS_SQL((n) => `$${n}`),
      [userId, now],
    );
    return r.rows.map((row) => ({ ...toChain(row), expiresAt: Number(row.expires_at) }));
  }
  async beginAttempt(subject: string, now: number, rule: AttemptRule): Promise<AttemptStart> {
    await this.ready;
    const sql = beginAttemptSql((n) => (n === 1 ? '$1' : `$${n}::bigint`), rule);
    const row = (await this.pool.query<AttemptDbRow>(sql, [subject, now, rule.resetAfterMs])).rows[0];
    if (row) return { counted: true, failures: Number(row.failures), notBefore: Number(row.not_before) };
    return { counted: false, notBefore: (await this.getAttempts(subject))?.notBefore ?? now };
  }
  async uncountAttempt(subject: string, startedWait?: number): Promise<void> {
    await this.q(
      `UPDATE auth_attempts SET failures = GREATEST(failures - 1, 0),
       not_before = CASE WHEN not_before = $2::bigint THEN 0 ELSE not_before END WHERE subject = $1`,
      [subject, startedWait ?? -1],
    );
  }
  async getAttempts(subject: string): Promise<AttemptRow | undefined> {
    await this.ready;
    const r = await this.pool.query<AttemptDbRow>('SELECT * FROM auth_attempts WHERE subject = $1', [
      subject,
    ]);
    return r.rows[0] && toAttempt(r.rows[0]);
  }
  async clearAttempts(subject: string): Promise<boolean> {
    return (await this.q('DELETE FROM auth_attempts WHERE subject = $1', [subject])).rowCount === 1;
  }
  async lockedSubjects(now: number): Promise<AttemptRow[]> {
    await this.ready;
    const r = await this.pool.query<AttemptDbRow>(
      'SELECT * FROM auth_attempts WHERE not_before > $1 ORDER BY not_before DESC',
      [now],
    );
    return r.rows.map(toAttempt);
  }
  async appendAudit(
    entry: AuditInput,
    chain: (previousHash: string, seq: number) => string,
  ): Promise<AuditRow> {
    await this.ready;
    // One transaction on one connection (fine through PgBouncer in transaction mode); the advisory
    // lock makes appends from every instance take turns, so each entry follows the last one.
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['portico_auth_audit']);
      const last = await client.query<{ seq: string; hash: string }>(
        'SELECT seq, hash FROM auth_audit ORDER BY seq DESC LIMIT 1',
      );
      const seq = Number(last.rows[0]?.seq ?? 0) + 1;
      const prevHash = last.rows[0]?.hash ?? AUDIT_GENESIS;
      const hash = chain(prevHash, seq);
      await client.query(
        'INSERT INTO auth_audit (seq, at, event, user_id, detail, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [seq, entry.at, entry.event, entry.userId ?? null, entry.detail, prevHash, hash],
      );
      await client.query('COMMIT');
      return { ...entry, seq, prevHash, hash };
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }
  async readAudit(filter: AuditFilter): Promise<AuditRow[]> {
    await this.ready;
    const { sql, params } = auditWhere(filter, (n) => `$${n}`);
    return (await this.pool.query<AuditDbRow>(sql, params)).rows.map(toAudit);
  }
  async putPasskey(row: PasskeyRow): Promise<boolean> {
    const r = await this.q(
      PUT_PASSKEY_SQL((n) => `$${n}`),
      passkeyParams(row),
    );
    return r.rowCount === 1;
  }
  async getPasskey(credentialId: string): Promise<PasskeyRow | undefined> {
    const r = await this.q('SELECT * FROM auth_passkeys WHERE credential_id = $1', [credentialId]);
    const row = r.rows[0] as unknown as PasskeyDbRow | undefined;
    return row ? toPasskey(row) : undefined;
  }
  async listPasskeys(userHandle: string): Promise<PasskeyRow[]> {
    const r = await this.q(
      'SELECT * FROM auth_passkeys WHERE user_handle = $1 ORDER BY created_at, credential_id',
      [userHandle],
    );
    return (r.rows as unknown as PasskeyDbRow[]).map(toPasskey);
  }
  async usePasskey(credentialId: string, counter: number, next: number, now: number): Promise<boolean> {
    const r = await this.q(
      USE_PASSKEY_SQL((n) => `$${n}`),
      [credentialId, counter, next, now],
    );
    return r.rowCount === 1;
  }
  async deletePasskey(credentialId: string, userHandle: string): Promise<boolean> {
    const r = await this.q('DELETE FROM auth_passkeys WHERE credential_id = $1 AND user_handle = $2', [
      credentialId,
      userHandle,
    ]);
    return r.rowCount === 1;
  }
  async close(): Promise<void> {
    await this.ready.catch(() => {});
    await this.pool.end();
  }
}
