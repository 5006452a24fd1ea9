import { type SqliteDatabase, scalar, whileSqliteAvailable } from '../stores/sqlite.ts';
import { generateApiKey, hashApiKey, keyPrefix } from './api-key.ts';
import { parseStoredSettings } from './key-settings.ts';
import {
  type ApiKeyRecord,
  type CreateKeyParameters,
  type KeyChanges,
  type KeyStore,
  prepareNewKey,
  validateKeyChanges,
} from './key-store.ts';

type Row = {
  id: string;
  name: string;
  key_prefix: string;
  project: string;
  daily_credits: number;
  credits_per_second: number | null;
  settings: string;
  created_at: number;
  revoked_at: number | null;
};

const toRecord = (row: Row): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  prefix: row.key_prefix,
  project: row.project,
  dailyCredits: row.daily_credits,
  creditsPerSecond: row.credits_per_second,
  settings: parseStoredSettings(row.settings),
  createdAt: new Date(row.created_at),
  revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
});

/** How often the request path asks SQLite whether another process (the CLI) changed the keys. */
const CHANGE_CHECK_MS = 100;

/**
 * Keys in the gateway's SQLite database. Lookups on the request path are served from memory; the
 * cache is dropped when `PRAGMA data_version` shows a write by another connection, so a key
 * created or revoked by `portico keys` on the same data dir takes effect within 100 ms.
 */
export class SqliteKeyStore implements KeyStore {
  private readonly cache = new Map<string, ApiKeyRecord | null>();
  private dataVersion = -1;
  private lastCheck = 0;
  private readonly statements;

  constructor(db: SqliteDatabase) {
    this.statements = {
      insert: db.prepare(
        `INSERT INTO api_keys (id, name, key_hash, key_prefix, project, daily_credits, credits_per_second, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      list: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
      byId: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
      byHash: db.prepare('SELECT * FROM api_keys WHERE key_hash = ?'),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      update: db.prepare(
        'UPDATE api_keys SET name = ?, project = ?, daily_credits = ?, credits_per_second = ?, settings = ? WHERE id = ?',
      ),
      rotate: db.prepare(
        'UPDATE api_keys SET key_hash = ?, key_prefix = ? WHERE id = ? AND revoked_at IS NULL',
      ),
      dataVersion: db.prepare('PRAGMA data_version'),
    };
  }

  // Admin operations: a database that cannot be used (locked, full, read-only) is a 503 naming it.

  async create(parameters: CreateKeyParameters) {
    const k = prepareNewKey(parameters);
    whileSqliteAvailable(() =>
      this.statements.insert.run(
        k.id,
        k.name,
        k.keyHash,
        k.prefix,
        k.project,
        k.dailyCredits,
        k.creditsPerSecond,
        Date.now(),
      ),
    );
    this.cache.clear();
    return { key: k.key, record: this.record(k.id)! };
  }

  async list() {
    return whileSqliteAvailable(() => (this.statements.list.all() as Row[]).map(toRecord));
  }

  async get(id: string) {
    return this.record(id);
  }

  private record(id: string): ApiKeyRecord | undefined {
    const row = whileSqliteAvailable(() => this.statements.byId.get(id) as Row | undefined);
    return row && toRecord(row);
  }

  async update(id: string, changes: KeyChanges) {
    const current = this.record(id);
    if (!current) return undefined;
    const valid = validateKeyChanges(current, changes);
    const name = valid.name ?? current.name;
    const project = valid.project ?? current.project;
    const daily = valid.dailyCredits ?? current.dailyCredits;
    const perSecond =
      valid.creditsPerSecond === undefined ? current.creditsPerSecond : valid.creditsPerSecond;
    const settings = JSON.stringify(valid.settings);
    whileSqliteAvailable(() => this.statements.update.run(name, project, daily, perSecond, settings, id));
    this.cache.clear();
    return this.record(id);
  }

  async rotate(id: string) {
    const key = generateApiKey();
    const { changes } = whileSqliteAvailable(() =>
      this.statements.rotate.run(hashApiKey(key), keyPrefix(key), id),
    );
    this.cache.clear();
    if (changes === 0) return undefined;
    return { key, record: this.record(id)! };
  }

  async revoke(id: string) {
    whileSqliteAvailable(() => this.statements.revoke.run(Date.now(), id));
    this.cache.clear();
    return this.record(id);
  }

  authenticate(key: string): ApiKeyRecord | undefined {
    this.dropCacheIfChangedElsewhere();
    const hash = hashApiKey(key);
    let record = this.cache.get(hash);
    if (record === undefined) {
      const row = this.statements.byHash.get(hash) as Row | undefined;
      record = row ? toRecord(row) : null;
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, record);
    }
    return record && record.revokedAt === null ? record : undefined;
  }

  private dropCacheIfChangedElsewhere() {
    const now = Date.now();
    if (now - this.lastCheck < CHANGE_CHECK_MS) return;
    this.lastCheck = now;
    const version = scalar<number>(this.statements.dataVersion);
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.cache.clear();
    }
  }

  async close() {}
}
