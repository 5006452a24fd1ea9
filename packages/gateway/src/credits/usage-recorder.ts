import { type SqliteDatabase, scalar } from '../store/sqlite.ts';
import { utcDay } from './day.ts';

export type UsageRow = { keyId: string; day: string; method: string; requests: number; credits: number };
export type ErrorRow = { keyId: string; day: string; code: number; count: number };

export interface UsageRecorder {
  /** Counts one answered request: its method, the credits it cost and its error code, if any. */
  record(keyId: string, method: string, credits: number, errorCode?: number, now?: number): void;
  usage(filter: { keyId?: string; fromDay?: string }): Promise<UsageRow[]>;
  errors(filter: { keyId?: string; fromDay?: string }): Promise<ErrorRow[]>;
  flush(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Usage per key, method and UTC day in SQLite. Counts are summed in memory and written in one
 * transaction every `flushMs`, so the request path never waits for the disk.
 */
export class SqliteUsageRecorder implements UsageRecorder {
  private pending = new Map<string, UsageRow>();
  private pendingErrors = new Map<string, ErrorRow>();
  private readonly timer: NodeJS.Timeout;
  private readonly statements;

  constructor(
    private readonly db: SqliteDatabase,
    flushMs = 500,
  ) {
    this.statements = {
      upsert: db.prepare(
        `INSERT INTO usage (key_id, day, method, requests, credits) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (key_id, day, method) DO UPDATE SET requests = requests + excluded.requests, credits = credits + excluded.credits`,
      ),
      upsertError: db.prepare(
        `INSERT INTO usage_errors (key_id, day, code, count) VALUES (?, ?, ?, ?)
         ON CONFLICT (key_id, day, code) DO UPDATE SET count = count + excluded.count`,
      ),
      creditsOn: db.prepare(
        'SELECT COALESCE(SUM(credits), 0) AS credits FROM usage WHERE key_id = ? AND day = ?',
      ),
    };
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(keyId: string, method: string, credits: number, errorCode?: number, now = Date.now()) {
    const day = utcDay(now);
    const id = `${keyId}\0${day}\0${method}`;
    const row = this.pending.get(id);
    if (row) {
      row.requests += 1;
      row.credits += credits;
    } else {
      this.pending.set(id, { keyId, day, method, requests: 1, credits });
    }
    if (errorCode !== undefined) {
      const errorId = `${keyId}\0${day}\0${errorCode}`;
      const errorRow = this.pendingErrors.get(errorId);
      if (errorRow) errorRow.count += 1;
      else this.pendingErrors.set(errorId, { keyId, day, code: errorCode, count: 1 });
    }
  }

  async flush() {
    if (this.pending.size === 0 && this.pendingErrors.size === 0) return;
    const rows = this.pending;
    const errors = this.pendingErrors;
    this.pending = new Map();
    this.pendingErrors = new Map();
    this.db.exec('BEGIN');
    try {
      for (const r of rows.values())
        this.statements.upsert.run(r.keyId, r.day, r.method, r.requests, r.credits);
      for (const e of errors.values()) this.statements.upsertError.run(e.keyId, e.day, e.code, e.count);
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }

  /** Credits recorded for a key on a day (restores the in-memory balances after a restart). */
  creditsOn(keyId: string, day: string): number {
    let credits = scalar<number>(this.statements.creditsOn, keyId, day);
    for (const row of this.pending.values())
      if (row.keyId === keyId && row.day === day) credits += row.credits;
    return credits;
  }

  async usage(filter: { keyId?: string; fromDay?: string }) {
    await this.flush();
    const rows = this.db
      .prepare(
        `SELECT key_id AS keyId, day, method, requests, credits FROM usage
         WHERE (?1 IS NULL OR key_id = ?1) AND (?2 IS NULL OR day >= ?2) ORDER BY day, key_id, method`,
      )
      .all(filter.keyId ?? null, filter.fromDay ?? null) as UsageRow[];
    return rows;
  }

  async errors(filter: { keyId?: string; fromDay?: string }) {
    await this.flush();
    return this.db
      .prepare(
        `SELECT key_id AS keyId, day, code, count FROM usage_errors
         WHERE (?1 IS NULL OR key_id = ?1) AND (?2 IS NULL OR day >= ?2) ORDER BY day, key_id, code`,
      )
      .all(filter.keyId ?? null, filter.fromDay ?? null) as ErrorRow[];
  }

  async close() {
    clearInterval(this.timer);
    await this.flush();
  }
}
