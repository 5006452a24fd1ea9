import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { StoreUnavailableError } from '../rpc/errors.ts';
import { KEYS_CHANNEL, whilePostgresReachable } from '../stores/postgres.ts';
import { generateApiKey, hashApiKey, keyPrefix } from './api-key.ts';
import { KeyInputError } from './key-input-error.ts';
import { parseStoredSettings } from './key-settings.ts';
import {
  type ApiKeyRecord,
  type CreateKeyParameters,
  type KeyChanges,
  type KeyStore,
  prepareNewKey,
  validateKeyChanges,
} from './key-store.ts';

const UNHEARD =
  'the key change listener did not hear its own test notification (is its connection a PgBouncer in transaction mode? set stores.databaseDirectUrl to PostgreSQL itself): key lookups go to PostgreSQL on every request';

type Row = {
  id: string;
  name: string;
  key_prefix: string;
  project: string;
  daily_credits: string | number;
  credits_per_second: string | number | null;
  settings: unknown;
  created_at: Date;
  revoked_at: Date | null;
};

const toRecord = (row: Row): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  prefix: row.key_prefix,
  project: row.project,
  dailyCredits: Number(row.daily_credits),
  creditsPerSecond: row.credits_per_second === null ? null : Number(row.credits_per_second),
  settings: parseStoredSettings(row.settings),
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

const COLUMNS =
  'id, name, key_prefix, project, daily_credits, credits_per_second, settings, created_at, revoked_at';

export type PostgresKeyStoreOptions = {
  /** Told when the change listener's connection is lost or cannot be made (it reconnects by itself). */
  onError?: (error: Error) => void;
  /** Wait between attempts to re-establish the change listener. Default 1000 ms. */
  reconnectMs?: number;
  /** How long the listener waits for its own test notification before it is not trusted. Default 2000 ms. */
  probeTimeoutMs?: number;
};

/**
 * Keys in the shared PostgreSQL database, stored only as SHA-256 digests.
 *
 * Lookups on the request path are served from an in-memory cache. A trigger on `api_keys`
 * announces every change with NOTIFY; each instance LISTENs on a dedicated connection and drops
 * its cache on every announcement, so a key created, changed, rotated or revoked anywhere (another
 * instance, the CLI, plain SQL) takes effect everywhere as soon as the notification arrives. While
 * the listener is not connected the cache is not used at all (every lookup asks PostgreSQL), so a
 * lost notification can never leave a revoked key usable.
 *
 * The listener proves it hears notifications before the cache is used: it sends one through the
 * pool and waits for it. Through PgBouncer in transaction mode a LISTEN is held by a server
 * connection the listener does not keep, so the test notification never comes; the listener is
 * then not trusted (lookups go to PostgreSQL) and `onError` says to give it `listenUrl`, a direct
 * connection.
 */
export class PostgresKeyStore implements KeyStore {
  private readonly cache = new Map<string, ApiKeyRecord | null>();
  /** Bumped on every invalidation; a lookup that raced with one does not fill the cache. */
  private generation = 0;
  private listener: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly ready: Promise<void>;

  /**
   * `listenUrl` is where the change listener connects: PostgreSQL itself (a session of its own),
   * not a pooler in transaction mode; the pool may go through one.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly listenUrl: string,
    private readonly options: PostgresKeyStoreOptions = {},
  ) {
    this.ready = this.listen();
  }

  /** Resolves once the first attempt to start the change listener has finished (connected or not). */
  whenListening(): Promise<void> {
    return this.ready;
  }

  /** Whether lookups are currently served from the cache (the change listener is connected). */
  get caching(): boolean {
    return this.listening;
  }

  /** A statement of the admin side; a database that cannot be reached is a 503 naming PostgreSQL. */
  private query<R extends pg.QueryResultRow>(text: string, values?: unknown[]) {
    return whilePostgresReachable(() => this.pool.query<R>(text, values));
  }

  async create(parameters: CreateKeyParameters) {
    const k = prepareNewKey(parameters);
    try {
      const { rows } = await this.query<Row>(
        `INSERT INTO api_keys (id, name, key_hash, key_prefix, project, daily_credits, credits_per_second, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [k.id, k.name, k.keyHash, k.prefix, k.project, k.dailyCredits, k.creditsPerSecond, new Date()],
      );
      this.invalidate();
      return { key: k.key, record: toRecord(rows[0]) };
    } catch (error) {
      if ((error as { code?: string }).code === '23505' && parameters.key !== undefined)
        throw new KeyInputError('a key with this text already exists');
      throw error;
    }
  }

  async list() {
    const { rows } = await this.query<Row>(`SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`);
    return rows.map(toRecord);
  }

  async get(id: string) {
    const { rows } = await this.query<Row>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
    return rows[0] && toRecord(rows[0]);
  }

  async update(id: string, changes: KeyChanges) {
    const current = await this.get(id);
    if (!current) return undefined;
    const valid = validateKeyChanges(current, changes);
    const settings = JSON.stringify(valid.settings);
    const setPerSecond = valid.creditsPerSecond !== undefined;
    const { rows } = await this.query<Row>(
      `UPDATE api_keys SET
         name = COALESCE($1, name),
         project = COALESCE($2, project),
         daily_credits = COALESCE($3, daily_credits),
         credits_per_second = CASE WHEN $4::boolean THEN $5::bigint ELSE credits_per_second END,
         settings = $7::jsonb
       WHERE id = $6 RETURNING ${COLUMNS}`,
      [
        valid.name ?? null,
        valid.project ?? null,
        valid.dailyCredits ?? null,
        setPerSecond,
        valid.creditsPerSecond ?? null,
        id,
        settings,
      ],
    );
    this.invalidate();
    return rows[0] && toRecord(rows[0]);
  }

  async rotate(id: string) {
    const key = generateApiKey();
    const { rows } = await this.query<Row>(
      `UPDATE api_keys SET key_hash = $1, key_prefix = $2 WHERE id = $3 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
      [hashApiKey(key), keyPrefix(key), id],
    );
    this.invalidate();
    return rows[0] && { key, record: toRecord(rows[0]) };
  }

  async revoke(id: string) {
    // One statement: the answer cannot fail after the key was revoked (a revoked key keeps its date).
    const { rows } = await this.query<Row>(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2 RETURNING ${COLUMNS}`,
      [new Date(), id],
    );
    this.invalidate();
    return rows[0] && toRecord(rows[0]);
  }

  authenticate(key: string): ApiKeyRecord | undefined | Promise<ApiKeyRecord | undefined> {
    const hash = hashApiKey(key);
    if (this.listening) {
      const cached = this.cache.get(hash);
      if (cached !== undefined) return live(cached);
    }
    return this.lookup(hash);
  }

  private async lookup(hash: string) {
    const generation = this.generation;
    let rows: Row[];
    try {
      ({ rows } = await this.pool.query<Row>(`SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1`, [hash]));
    } catch (error) {
      this.options.onError?.(error as Error);
      throw new StoreUnavailableError('postgresql', 'the key store is unavailable; retry shortly');
    }
    const record = rows[0] ? toRecord(rows[0]) : null;
    if (this.listening && generation === this.generation) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, record);
    }
    return live(record);
  }

  private invalidate() {
    this.generation++;
    this.cache.clear();
  }

  private async listen() {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.listenUrl });
    this.listener = client;
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client));
    let schema: string | undefined;
    const probe = `probe:${randomUUID()}`;
    let heard: () => void = () => {};
    const probeHeard = new Promise<boolean>((resolve) => {
      heard = () => resolve(true);
      setTimeout(() => resolve(false), this.options.probeTimeoutMs ?? 2000).unref();
    });
    // The payload is the schema of the changed table: stores in other schemas are not ours.
    client.on('notification', (message) => {
      if (message.payload === probe) heard();
      else if (schema === undefined || message.payload === schema) this.invalidate();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${KEYS_CHANNEL}`);
      schema = (await client.query<{ schema: string }>('SELECT current_schema() AS schema')).rows[0].schema;
      await this.pool.query('SELECT pg_notify($1, $2)', [KEYS_CHANNEL, probe]);
      if (!(await probeHeard)) throw new Error(UNHEARD);
      if (this.listener !== client) {
        await client.end().catch(() => {});
        return;
      }
      this.invalidate();
      this.listening = true;
    } catch (error) {
      this.lost(client, error as Error);
    }
  }

  private lost(client: pg.Client, error?: Error) {
    if (this.listener !== client) return;
    this.listener = undefined;
    this.listening = false;
    this.invalidate();
    client.end().catch(() => {});
    if (this.closed) return;
    this.options.onError?.(error ?? new Error('the key change listener was disconnected'));
    this.reconnectTimer = setTimeout(() => void this.listen(), this.options.reconnectMs ?? 1000);
    this.reconnectTimer.unref();
  }

  async close() {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await this.ready;
    const client = this.listener;
    this.listener = undefined;
    this.listening = false;
    await client?.end().catch(() => {});
  }
}

const live = (record: ApiKeyRecord | null) => (record && record.revokedAt === null ? record : undefined);
