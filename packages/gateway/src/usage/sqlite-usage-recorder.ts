import { utcDay } from '../credits/day.ts';
import { type BatchWriter, GroupCommit } from '../stores/group-commit.ts';
import { isSqliteUnavailable, type SqliteDatabase, whileSqliteAvailable } from '../stores/sqlite.ts';
import { type ErrorRow, isRefused, type UsageRecorder, type UsageRow } from './usage-recorder.ts';

/**
 * Usage per key, method and UTC day in SQLite. Counts are summed in memory and written every
 * `flushMs` (in the group commit of that turn, beside any credit reservations), so the request
 * path never waits for them and a commit of reservations does not pay for them each turn. A crash
 * loses at most the counts of the last `flushMs`, never a balance (see SqliteCreditLedger).
 */
export class SqliteUsageRecorder implements UsageRecorder, BatchWriter {
  private rows = new Map<string, UsageRow>();
  private errorRows = new Map<string, ErrorRow>();
  /** What the transaction in progress took, put back if it rolls back. */
  private taken: { rows: Map<string, UsageRow>; errors: Map<string, ErrorRow> } | undefined;
  /** Whether the counts are to be written with the next commit (every `flushMs`, or a flush). */
  private due = false;
  private readonly timer: NodeJS.Timeout;
  private readonly statements;

  constructor(
    private readonly db: SqliteDatabase,
    flushMs = 500,
    private readonly commits = new GroupCommit(db),
    /** Told of rows that could not be written: a bad row is dropped (it cannot block the debits), others kept. */
    private readonly onError: (error: Error) => void = () => {},
  ) {
    this.statements = {
      upsert: db.prepare(
        `INSERT INTO usage (key_id, day, method, requests, credits, refused) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (key_id, day, method) DO UPDATE SET requests = requests + excluded.requests,
           credits = credits + excluded.credits, refused = refused + excluded.refused`,
      ),
      upsertError: db.prepare(
        `INSERT INTO usage_errors (key_id, day, code, count) VALUES (?, ?, ?, ?)
         ON CONFLICT (key_id, day, code) DO UPDATE SET count = count + excluded.count`,
      ),
    };
    commits.add(this);
    this.timer = setInterval(() => {
      this.due = true;
      if (this.pending) this.commits.schedule();
    }, flushMs);
    this.timer.unref();
  }

  record(keyId: string, method: string, credits: number, errorCode?: number, now = Date.now()) {
    const day = utcDay(now);
    const id = `${keyId}\0${day}\0${method}`;
    const refused = isRefused(credits, errorCode);
    const row = this.rows.get(id);
    if (row) {
      row.requests += 1;
      row.credits += credits;
      row.refused += refused;
    } else {
      this.rows.set(id, { keyId, day, method, requests: 1, credits, refused });
    }
    if (errorCode !== undefined) addError(this.errorRows, { keyId, day, code: errorCode, count: 1 });
  }

  async flush() {
    this.due = true;
    whileSqliteAvailable(() => this.commits.commitNow());
  }

  get pending() {
    return this.due ? this.rows.size + this.errorRows.size : 0;
  }

  write() {
    if (this.pending === 0) return;
    this.due = false;
    const taken = { rows: this.rows, errors: this.errorRows };
    this.taken = taken;
    this.rows = new Map();
    this.errorRows = new Map();
    // A row SQLite refuses is dropped (and reported) rather than failing the whole transaction;
    // a database that cannot be written fails it, and the rows are kept for the next attempt.
    for (const r of taken.rows.values())
      this.attempt(() =>
        this.statements.upsert.run(r.keyId, r.day, r.method, r.requests, r.credits, r.refused),
      );
    for (const e of taken.errors.values())
      this.attempt(() => this.statements.upsertError.run(e.keyId, e.day, e.code, e.count));
  }

  committed() {
    this.taken = undefined;
  }

  failed(error: Error) {
    const taken = this.taken;
    this.taken = undefined;
    if (!taken) return;
    this.due = true;
    this.onError(error);
    for (const row of taken.rows.values()) addUsage(this.rows, row);
    for (const row of taken.errors.values()) addError(this.errorRows, row);
  }

  private attempt(write: () => void) {
    try {
      write();
    } catch (error) {
      if (isSqliteUnavailable(error)) throw error;
      this.onError(error as Error);
    }
  }

  async usage(filter: { keyId?: string; fromDay?: string }) {
    await this.flush();
    const rows = this.db
      .prepare(
        `SELECT key_id AS keyId, day, method, requests, credits, refused FROM usage
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

function addUsage(rows: Map<string, UsageRow>, row: UsageRow) {
  const id = `${row.keyId}\0${row.day}\0${row.method}`;
  const found = rows.get(id);
  if (!found) rows.set(id, { ...row });
  else {
    found.requests += row.requests;
    found.credits += row.credits;
    found.refused += row.refused;
  }
}

function addError(rows: Map<string, ErrorRow>, row: ErrorRow) {
  const id = `${row.keyId}\0${row.day}\0${row.code}`;
  const found = rows.get(id);
  if (found) found.count += row.count;
  else rows.set(id, { ...row });
}
