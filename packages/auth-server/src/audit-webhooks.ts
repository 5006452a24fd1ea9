// Audit entries pushed to the operator's webhooks, signed with HMAC-SHA256 so the receiver can
// check they come from this service: `x-portico-signature: v1=<hex HMAC(secret, "<timestamp>.<body>")>`
// with `x-portico-timestamp` (Unix seconds). A delivery that fails (network error or non-2xx) is
// retried with doubling delays (1 s, 2 s, 4 s, 8 s, 16 s), then given up and logged; the audit
// trail in the store stays the record.
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface AuditWebhook {
  url: string;
  /** 32+ characters, shared with the receiver. */
  secret: string;
}

/** What a webhook receives: one audit entry. */
export interface AuditWebhookBody {
  seq: number;
  at: string;
  event: string;
  user?: string;
  detail: Record<string, unknown>;
  hash: string;
}

const RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 16_000];
const TIMEOUT_MS = 5000;

export function checkAuditWebhooks(hooks: AuditWebhook[] | undefined): void {
  for (const hook of hooks ?? []) {
    if (!URL.canParse(hook.url) || !/^https?:$/.test(new URL(hook.url).protocol)) {
      throw new Error(`auth: auditWebhooks url must be an http(s) URL: ${hook.url}`);
    }
    if (typeof hook.secret !== 'string' || hook.secret.length < 32) {
      throw new Error('auth: auditWebhooks secret must be at least 32 characters');
    }
  }
}

/** The signature header's value for a body sent at `timestamp` (Unix seconds). */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** For receivers: true when `signature` is this body's, at this timestamp, under `secret`. */
export function verifyWebhookSignature(
  secret: string,
  timestamp: string,
  body: string,
  signature: string,
): boolean {
  if (!/^\d+$/.test(timestamp)) return false;
  const expected = Buffer.from(signWebhook(secret, Number(timestamp), body));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export class AuditWebhooks {
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  constructor(
    private readonly hooks: readonly AuditWebhook[],
    private readonly log: (line: string) => void,
  ) {}

  /** Sends the entry to every webhook, in the background. */
  push(entry: AuditWebhookBody): void {
    const body = JSON.stringify(entry);
    for (const hook of this.hooks) this.deliver(hook, body, entry.seq, 0);
  }

  private deliver(hook: AuditWebhook, body: string, seq: number, attempt: number): void {
    if (this.closed) return;
    const timestamp = Math.floor(Date.now() / 1000);
    fetch(hook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-portico-timestamp': String(timestamp),
        'x-portico-signature': signWebhook(hook.secret, timestamp, body),
      },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    })
      .then(async (res) => {
        await res.body?.cancel();
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
      })
      .catch((err: unknown) => {
        const delay = RETRY_DELAYS_MS[attempt];
        const where = new URL(hook.url).origin;
        if (delay === undefined || this.closed) {
          this.log(`auth: audit entry ${seq} not delivered to ${where}: ${(err as Error).message}`);
          return;
        }
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.deliver(hook, body, seq, attempt + 1);
        }, delay);
        timer.unref();
        this.timers.add(timer);
      });
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
