// What the SQLite credit ledger tests share: a frozen moment and a second connection to the file.
import { openSqlite } from '@portico/gateway';

// A fixed moment: the size of a reservation follows how fast the last one was used, so frozen time
// makes every test independent of the machine's speed.
export const NOON = Date.UTC(2026, 4, 12, 12);
export const DAY = '2026-05-12';

/** A second connection to the same file: what it reads is what survives a SIGKILL now. */
export function diskReader(path: string) {
  const db = openSqlite(path);
  const row = db.prepare('SELECT credits FROM credits_spent WHERE key_id = ? AND day = ?');
  return {
    credits: (keyId: string, day = DAY) =>
      (row.get(keyId, day) as { credits: number } | undefined)?.credits ?? 0,
    close: () => db.close(),
  };
}
