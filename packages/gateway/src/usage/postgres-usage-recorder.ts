import type pg from 'pg';
import { utcDay } from '../credits/day.ts';
import { whilePostgresReachable } from '../stores/postgres.ts';
import { type ErrorRow, isRefused, type UsageRecorder, type UsageRow } from './usage-recorder.ts';

export type PostgresUsageRecorderOptions = {
  /** How often the summed counts are written. Default 500 ms. */
  flushMs?: number;
  /** Told when a background write fails; the counts are kept and written with the next flush. */
  onError?: (error: Error) => void;
  /** Counts kept in memory while PostgreSQL cannot be written, at most (rows). Default 100000. */
  maxPendingRows?: number;
};

/**
 * Usage per key, method and UTC day (and errors per key, day and code) in the shared PostgreSQL
 * database. Like the SQLite recorder, counts are summed in memory and written behind the request
 * path, one transaction per flush, as increments, so any number of instances can write the same
 * rows. A failed write keeps the counts for the next flush (up to `maxPendingRows`).
 */
export class PostgresUsageRecorder implements UsageRecorder {
  private pending = new Map<string, UsageRow>();
  private pendingErrors = new Map<string, ErrorRow>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  /** Counts dropped because PostgreSQL could not be written for long (a bounded memory). */
  dropped = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: PostgresUsageRecorderOptions = {},
  ) {
    this.timer = setInterval(
      () => void this.flush().catch((error: Error) => this.options.onError?.(error)),
      options.flushMs ?? 500,
    );
    this.timer.unref();
  }

  record(keyId: string, method: string, credits: number, errorCode?: number, now = Date.now()) {
    const day = utcDay(now);
    addUsage(
      this.pending,
      { keyId, day, method, requests: 1, credits, refused: isRefused(credits, errorCode) },
      this.limit,
    ) || this.dropped++;
    if (errorCode !== undefined)
      addError(this.pendingErrors, { keyId, day, code: errorCode, count: 1 }, this.limit) || this.dropped++;
  }

  private get limit() {
    return this.options.maxPendingRows ?? 100_000;
  }

  /** Writes the counts summed so far; one flush at a time, in the order asked. */
  flush(): Promise<void> {
    const run = this.flushing.catch(() => {}).then(() => this.write());
    this.flushing = run;
    return run;
  }

  private async write() {
    if (this.pending.size === 0 && this.pendingErrors.size === 0) return;
    const rows = [...this.pending.values()];
    const errors = [...this.pendingErrors.values()];
    this.pending = new Map();
    this.pendingErrors = new Map();
    // The same order in every instance, so concurrent flushes cannot deadlock on row locks.
    rows.sort((a, b) => compare(a.keyId, b.keyId) || compare(a.day, b.day) || compare(a.method, b.method));
    errors.sort((a, b) => compare(a.keyId, b.keyId) || compare(a.day, b.day) || a.code - b.code);
    let client: pg.PoolClient | undefined;
    // A connection lost while checked out between two statements is reported as an 'error' event
    // that the pool does not listen to then: without a listener it would end the process. The
    // statement in progress or the next one fails anyway, which is handled below.
    const lost = () => {};
    let failure: Error | undefined;
    try {
      client = await this.pool.connect();
      client.on('error', lost);
      await client.query('BEGIN');
      if (rows.length)
        await client.query(
          `INSERT INTO usage (key_id, day, method, requests, credits, refused)
           SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
           ON CONFLICT (key_id, day, method) DO UPDATE
             SET requests = usage.requests + excluded.requests, credits = usage.credits + excluded.credits,
               refused = usage.refused + excluded.refused`,
          [
            rows.map((r) => r.keyId),
            rows.map((r) => r.day),
            rows.map((r) => r.method),
            rows.map((r) => r.requests),
            rows.map((r) => r.credits),
            rows.map((r) => r.refused),
          ],
        );
      if (errors.length)
        await client.query(
          `INSERT INTO usage_errors (key_id, day, code, count)
           SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[])
           ON CONFLICT (key_id, day, code) DO UPDATE SET count = usage_errors.count + excluded.count`,
          [
            errors.map((e) => e.keyId),
            errors.map((e) => e.day),
            errors.map((e) => e.code),
            errors.map((e) => e.count),
          ],
        );
      await client.query('COMMIT');
    } catch (error) {
      failure = error as Error;
      await client?.query('ROLLBACK').catch(() => {});
      for (const row of rows) addUsage(this.pending, row, this.limit) || this.dropped++;
      for (const row of errors) addError(this.pendingErrors, row, this.limit) || this.dropped++;
      throw error;
    } finally {
      client?.off('error', lost);
      // A client whose statement failed is dropped rather than handed out again (it may be dead).
      client?.release(failure);
    }
  }

  usage(filter: { keyId?: string; fromDay?: string }) {
    return whilePostgresReachable(() => this.readUsage(filter));
  }

  errors(filter: { keyId?: string; fromDay?: string }) {
    return whilePostgresReachable(() => this.readErrors(filter));
  }

  private async readUsage(filter: { keyId?: string; fromDay?: string }) {
    await this.flush();
    const { rows } = await this.pool.query<UsageRow>(
      `SELECT key_id AS "keyId", day, method, requests::float8 AS requests, credits::float8 AS credits,
        refused::float8 AS refused FROM usage
       WHERE ($1::text IS NULL OR key_id = $1) AND ($2::text IS NULL OR day >= $2) ORDER BY day, key_id, method`,
      [filter.keyId ?? null, filter.fromDay ?? null],
    );
    return rows;
  }

  private async readErrors(filter: { keyId?: string; fromDay?: string }) {
    await this.flush();
    const { rows } = await this.pool.query<ErrorRow>(
      `SELECT key_id AS "keyId", day, code, count::float8 AS count FROM usage_errors
       WHERE ($1::text IS NULL OR key_id = $1) AND ($2::text IS NULL OR day >= $2) ORDER BY day, key_id, code`,
      [filter.keyId ?? null, filter.fromDay ?? null],
    );
    return rows;
  }

  async close() {
    clearInterval(this.timer);
    await this.flush();
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function addUsage(into: Map<string, UsageRow>, row: UsageRow, limit: number): boolean {
  const id = `${row.keyId}\0${row.day}\0${row.method}`;
  const found = into.get(id);
  if (found) {
    found.requests += row.requests;
    found.credits += row.credits;
    found.refused += row.refused;
  } else {
    if (into.size >= limit) return false;
    into.set(id, { ...row });
  }
  return true;
}

function addError(into: Map<string, ErrorRow>, row: ErrorRow, limit: number): boolean {
  const id = `${row.keyId}\0${row.day}\0${row.code}`;
  const found = into.get(id);
  if (found) found.count += row.count;
  else {
    if (into.size >= limit) return false;
    into.set(id, { ...row });
  }
  return true;
}
