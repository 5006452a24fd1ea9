import type { SqliteDatabase } from './sqlite.ts';

/** Something with rows to write: `write` runs inside the transaction, then one of the outcomes. */
export type BatchWriter = {
  /** How many statements `write` would run now (0: nothing waits). */
  readonly pending: number;
  /** Writes what is pending (and takes it out of pending); throws to abort the transaction. */
  write(): void;
  /** The transaction committed: what `write` wrote is on disk. */
  committed(): void;
  /**
   * The transaction rolled back (also told to writers whose `write` was not reached): what was
   * pending is kept for the next commit or given up, as the writer decides.
   */
  failed(error: Error): void;
};

/**
 * Group commit for one SQLite connection: every writer's pending rows go into one transaction at
 * the end of the event-loop turn in which a commit was asked for (setImmediate runs after the poll
 * phase, so the reservations asked for by every request read in that turn share one commit): at
 * most one commit per turn instead of one per request; a single statement is its own transaction.
 *
 * A commit is durable against a crash of the process (SIGKILL, OOM): with WAL and
 * `synchronous = NORMAL` the commit is in the operating system's hands when it returns; a power
 * loss may still take the last commits (that would need `synchronous = FULL`, an fsync each).
 * Writers learn the outcome through `committed` / `failed`.
 */
export class GroupCommit {
  private readonly writers: BatchWriter[] = [];
  private scheduled = false;
  private readonly statements;

  constructor(private readonly db: SqliteDatabase) {
    this.statements = { begin: db.prepare('BEGIN'), commit: db.prepare('COMMIT') };
  }

  add(writer: BatchWriter) {
    this.writers.push(writer);
  }

  /** Commits what is pending at the end of this event-loop turn. */
  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      // A commitNow() in the meantime may have committed it already.
      if (!this.scheduled) return;
      try {
        this.commitNow();
      } catch {
        // Told to the writers (failed).
      }
    });
  }

  /** Commits what is pending now, synchronously (close, reads that must see every row); throws if it fails. */
  commitNow() {
    this.scheduled = false;
    let statements = 0;
    for (const writer of this.writers) statements += writer.pending;
    if (statements === 0) return;
    const transaction = statements > 1;
    try {
      if (transaction) this.statements.begin.run();
      for (const writer of this.writers) writer.write();
      if (transaction) this.statements.commit.run();
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const writer of this.writers) writer.failed(error as Error);
      throw error;
    }
    for (const writer of this.writers) writer.committed();
  }
}
