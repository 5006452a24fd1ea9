export type DebitResult = { ok: true; remaining: number } | { ok: false; remaining: number; resetsAt: Date };

/**
 * Daily credit balances. `debit` is atomic: however many requests race, the credits spent in a
 * UTC day never exceed the key's daily limit.
 */
export interface CreditLedger {
  debit(keyId: string, dailyLimit: number, cost: number, now?: number): Promise<DebitResult>;
  /** Gives back credits of a request the gateway could not serve (upstream unreachable). */
  refund(keyId: string, cost: number, now?: number): Promise<void>;
  /** Credits spent today. */
  spent(keyId: string, now?: number): Promise<number>;
  close(): Promise<void>;
}
