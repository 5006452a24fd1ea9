import { nextUtcMidnight, utcDay } from './day.ts';
import type { CreditLedger, DebitResult } from './ledger.ts';

/**
 * Balances of a single gateway process, held in memory (a check-and-debit cannot interleave in
 * one event loop). `loadSpent` seeds today's spending, e.g. from recorded usage after a restart.
 * Several instances must share a Redis ledger instead.
 */
export class MemoryCreditLedger implements CreditLedger {
  private readonly spentToday = new Map<string, { day: string; spent: number }>();

  constructor(private readonly loadSpent: (keyId: string, day: string) => number = () => 0) {}

  private entry(keyId: string, now: number) {
    const day = utcDay(now);
    let entry = this.spentToday.get(keyId);
    if (!entry || entry.day !== day) {
      entry = { day, spent: this.loadSpent(keyId, day) };
      this.spentToday.set(keyId, entry);
    }
    return entry;
  }

  async debit(keyId: string, dailyLimit: number, cost: number, now = Date.now()): Promise<DebitResult> {
    return this.debitNow(keyId, dailyLimit, cost, now);
  }

  /** The check-and-debit itself, synchronous (nothing can run between the check and the debit). */
  debitNow(keyId: string, dailyLimit: number, cost: number, now = Date.now()): DebitResult {
    const entry = this.entry(keyId, now);
    if (entry.spent + cost > dailyLimit) {
      return { ok: false, remaining: Math.max(0, dailyLimit - entry.spent), resetsAt: nextUtcMidnight(now) };
    }
    entry.spent += cost;
    return { ok: true, remaining: dailyLimit - entry.spent };
  }

  async refund(keyId: string, cost: number, now = Date.now()) {
    this.refundNow(keyId, cost, now);
  }

  refundNow(keyId: string, cost: number, now = Date.now()) {
    const entry = this.entry(keyId, now);
    entry.spent = Math.max(0, entry.spent - cost);
  }

  async spent(keyId: string, now = Date.now()) {
    return this.entry(keyId, now).spent;
  }

  async close() {}
}
