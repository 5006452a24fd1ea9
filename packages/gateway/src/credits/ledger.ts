export type DebitResult = { ok: true; remaining: number } | { ok: false; remaining: number; resetsAt: Date };

/**
 * Daily credit balances. `debit` is atomic: however many requests race, the credits spent in a
 * UTC day never exceed the key's daily limit.
 */
export interface CreditLedger {
  debit(keyId: string, dailyLimit: number, cost: number, now?: number): Promise<DebitResult>;
  /**
   * The same debit when it can be decided at once, without waiting for a store (this process
   * already holds the credits, or the balance is known to be short): undefined when only `debit`
   * can decide. The request path tries it first and awaits nothing when it answers.
   */
  debitNow?(keyId: string, dailyLimit: number, cost: number, now?: number): DebitResult | undefined;
  /** Gives back credits of a request the gateway could not serve (upstream unreachable). */
  refund(keyId: string, cost: number, now?: number): Promise<void>;
  /** Credits spent today. */
  spent(keyId: string, now?: number): Promise<number>;
  close(): Promise<void>;
}
