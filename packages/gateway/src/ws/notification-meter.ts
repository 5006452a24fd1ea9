import type { CreditLedger } from '../credits/ledger.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import { notificationMethod, type SubscriptionCosts, type SubscriptionType } from '../types.ts';
import type { UsageRecorder } from '../usage/usage-recorder.ts';

/** Close code when the key's daily balance cannot pay a notification (policy violation). */
export const CLOSE_CREDITS_EXHAUSTED = 1008;
/** Close code when the credit store cannot be reached and the gateway fails closed. */
export const CLOSE_METERING_UNAVAILABLE = 1011;

/** Close code when notifications pile up faster than they can be charged (try again later). */
export const CLOSE_BACKLOG = 1013;
/** Notifications waiting for their debit past which the connection is closed rather than grow. */
export const MAX_QUEUED_NOTIFICATIONS = 10_000;

/** WebSocket close reasons are limited to 123 bytes. */
const MAX_REASON_BYTES = 123;

export type NotificationMeterOptions = {
  ledger: CreditLedger;
  usage: UsageRecorder;
  /** The key's record as it is now (limits changed, key revoked: undefined) — looked up per notification. */
  key: () => Promise<ApiKeyRecord | undefined>;
  costs: SubscriptionCosts;
  /** Delivers a paid notification to the client. */
  send: (message: unknown) => void;
  /** Ends the connection with a close code and a reason meant for a person. */
  sever: (code: number, reason: string) => void;
  /** Told of each delivered notification and its cost (metrics). */
  charged?: (type: SubscriptionType, cost: number) => void;
  /** Told when the ledger failed (e.g. Redis unreachable with `redisFailure: closed`). */
  onError?: (error: unknown) => void;
};

/**
 * Charges each `eth_subscription` notification of one connection to the key's daily balance
 * before it is delivered, and records it in usage as `eth_subscription:<type>`. Debits may be
 * asynchronous (Redis), so a connection's notifications wait in one queue and leave in the order
 * they arrived. When the balance cannot pay a notification it is not delivered and the connection
 * is closed with 1008; when the ledger throws (metering unavailable) with 1011: nothing is
 * delivered unmetered. Per-second caps do not apply: notifications are pushed by the server.
 */
export class NotificationMeter {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;
  private stopped = false;

  constructor(private readonly options: NotificationMeterOptions) {}

  /**
   * Queues a notification. `wanted` is asked again when its turn comes: the subscription may have
   * ended (eth_unsubscribe, closed socket) while earlier notifications were being charged.
   */
  deliver(type: SubscriptionType, message: unknown, wanted: () => boolean) {
    if (this.stopped) return;
    if (this.queued >= MAX_QUEUED_NOTIFICATIONS) {
      this.sever(CLOSE_BACKLOG, 'notifications arrive faster than they can be metered; reconnect later');
      return;
    }
    this.queued += 1;
    this.tail = this.tail
      .then(() => this.meter(type, message, wanted))
      .finally(() => {
        this.queued -= 1;
      })
      .catch((error) => {
        this.options.onError?.(error);
        this.sever(
          CLOSE_METERING_UNAVAILABLE,
          'metering is unavailable; reconnect and subscribe again shortly',
        );
      });
  }

  /** Drops every queued notification and refuses new ones. */
  stop() {
    this.stopped = true;
  }

  private async meter(type: SubscriptionType, message: unknown, wanted: () => boolean) {
    if (this.stopped || !wanted()) return;
    const { ledger } = this.options;
    const key = await this.options.key();
    if (!key) {
      this.sever(CLOSE_CREDITS_EXHAUSTED, 'the API key was revoked');
      return;
    }
    const cost = this.options.costs[type];
    if (cost > 0) {
      const debit = await ledger.debit(key.id, key.dailyCredits, cost);
      if (!debit.ok) {
        this.sever(
          CLOSE_CREDITS_EXHAUSTED,
          `daily credits exhausted: a ${type} notification costs ${cost}, ${debit.remaining} left; they reset at 00:00 UTC`,
        );
        return;
      }
      if (this.stopped || !wanted()) {
        await ledger.refund(key.id, cost);
        return;
      }
    }
    this.options.usage.record(key.id, notificationMethod(type), cost);
    this.options.charged?.(type, cost);
    this.options.send(message);
  }

  private sever(code: number, reason: string) {
    if (this.stopped) return;
    this.stopped = true;
    // Our reasons are ASCII, so characters are bytes.
    this.options.sever(code, reason.slice(0, MAX_REASON_BYTES));
  }
}
