import { type SqliteDatabase, scalar } from '../store/sqlite.ts';
import { generateApiKey, generateKeyId, hashApiKey, keyPrefix } from './api-key.ts';
import {
  type ApiKeyRecord,
  type CreateKeyParameters,
  DEFAULT_DAILY_CREDITS,
  type KeyStore,
  validateDailyCredits,
  validateKeyName,
} from './key-store.ts';

type Row = {
  id: string;
  name: string;
  key_prefix: string;
  daily_credits: number;
  created_at: number;
  revoked_at: number | null;
};

const toRecord = (row: Row): ApiKeyRecord => ({
  id: row.id,
  name: row.name,
  prefix: row.key_prefix,
  dailyCredits: row.daily_credits,
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
        'INSERT INTO api_keys (id, name, key_hash, key_prefix, daily_credits, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      list: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
      byId: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
      byHash: db.prepare('SELECT * FROM api_keys WHERE key_hash = ?'),
      revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
      rename: db.prepare('UPDATE api_keys SET name = ? WHERE id = ?'),
      setCredits: db.prepare('UPDATE api_keys SET daily_credits = ? WHERE id = ?'),
      dataVersion: db.prepare('PRAGMA data_version'),
    };
  }

  async create(parameters: CreateKeyParameters) {
    const name = validateKeyName(parameters.name);
    const dailyCredits = validateDailyCredits(parameters.dailyCredits ?? DEFAULT_DAILY_CREDITS);
    const key = parameters.key ?? generateApiKey();
    if (key.length < 16 || !/^[A-Za-z0-9_-]+$/.test(key)) {
      throw new RangeError('a chosen key must be at least 16 characters of A-Z, a-z, 0-9, _ or -');
    }
    const id = generateKeyId();
    this.statements.insert.run(id, name, hashApiKey(key), keyPrefix(key), dailyCredits, Date.now());
    this.cache.clear();
    return { key, record: toRecord(this.statements.byId.get(id) as Row) };
  }

  async list() {
    return (this.statements.list.all() as Row[]).map(toRecord);
  }

  async get(id: string) {
    const row = this.statements.byId.get(id) as Row | undefined;
    return row && toRecord(row);
  }

  async update(id: string, changes: { name?: string; dailyCredits?: number }) {
    if (changes.name !== undefined) this.statements.rename.run(validateKeyName(changes.name), id);
    if (changes.dailyCredits !== undefined) {
      this.statements.setCredits.run(validateDailyCredits(changes.dailyCredits), id);
    }
    this.cache.clear();
    return this.get(id);
  }

  async revoke(id: string) {
    this.statements.revoke.run(Date.now(), id);
    this.cache.clear();
    return this.get(id);
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
