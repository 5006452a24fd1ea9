import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest } from '@portico/multichain';
import { RpcError } from './rpc.ts';
import type { SigningRequest } from './signing/types.ts';

/** A dapp asks to connect (wallet_createSession): the person picks networks and accounts. */
export type PendingConnection = { kind: 'connection'; id: string; createdAt: string } & ApprovalRequest;
/** A dapp asks the wallet to sign (or sign and send): the person approves or rejects it. */
export type PendingSignature = {
  kind: 'signature';
  id: string;
  createdAt: string;
  /** When the request is answered with `REQUEST_EXPIRED` if no one decides first. */
  expiresAt: string;
} & SigningRequest;
/** A signing request nobody answered in time (the approval page lists the latest). */
export type ExpiredSignature = {
  id: string;
  origin: string;
  method: string;
  title: string;
  expiredAt: string;
};
export type PendingApproval = PendingConnection | PendingSignature;
/** A signing request that ended, for the page's history (what was signed, rejected or missed). */
export type AnsweredSignature = {
  id: string;
  origin: string;
  scope: string;
  method: string;
  account: string;
  title: string;
  summary: string;
  outcome: SignatureOutcome;
  at: string;
};

/** How a signing request ended: answered, withdrawn because its account left the wallet, or expired. */
export type SignatureOutcome = 'approved' | 'rejected' | 'account-removed' | 'expired';

type Ending = ApprovalDecision | 'account-removed' | 'expired';
type Entry = { view: PendingApproval; resolve: (decision: Ending) => void };

/** How long a signing request waits for a person by default: 5 minutes (WalletConnect's default too). */
export const DEFAULT_REQUEST_EXPIRY_MS = 5 * 60_000;
const MAX_TIMER_MS = 2 ** 31 - 1;
const EXPIRED_KEPT = 10;
const HISTORY_KEPT = 20;

/**
 * Requests waiting for a person, connections and signatures alike: each resolves when the approval
 * page answers it. One request per origin waits at a time, whatever its kind (another is -32002, as
 * MetaMask answers a second connection request); a request whose dapp disconnects is dropped.
 */
export function createApprovalQueue(
  queueOptions: { onLog?: (line: string) => void; requestExpiryMs?: number } = {},
) {
  const pending = new Map<string, Entry>();
  const expired: ExpiredSignature[] = [];
  const history: AnsweredSignature[] = [];
  /** Notes how a signing request ended (newest first, the last HISTORY_KEPT). */
  const remember = (view: PendingApproval, outcome: SignatureOutcome) => {
    if (view.kind !== 'signature') return;
    const { id, origin, scope, method, account, details } = view;
    history.unshift({
      id,
      origin,
      scope,
      method,
      account,
      title: details.title,
      summary: details.summary,
      outcome,
      at: new Date().toISOString(),
    });
    history.length = Math.min(history.length, HISTORY_KEPT);
  };
  const log = queueOptions.onLog ?? (() => {});
  const expiryMs = queueOptions.requestExpiryMs ?? DEFAULT_REQUEST_EXPIRY_MS;
  if (!Number.isInteger(expiryMs) || expiryMs <= 0 || expiryMs > MAX_TIMER_MS)
    throw new Error(`requestExpiryMs must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`);

  function enqueue(
    view: PendingApproval,
    method: string,
    signal: AbortSignal | undefined,
    asks: string,
  ): Promise<Ending> {
    if ([...pending.values()].some((entry) => entry.view.origin === view.origin)) {
      return Promise.reject(
        new RpcError(
          -32002,
          `Request of type '${method}' already pending for origin ${view.origin}. Please wait.`,
        ),
      );
    }
    log(`wallet: ${view.origin} asks for ${asks}; waiting for the approval page`);
    return new Promise((resolve) => {
      // A signing request waits at most expiryMs: the dapp hears REQUEST_EXPIRED, the page says so.
      const timer =
        view.kind === 'signature'
          ? setTimeout(() => {
              if (!pending.delete(view.id)) return;
              expired.unshift({
                id: view.id,
                origin: view.origin,
                method: view.method,
                title: view.details.title,
                expiredAt: new Date().toISOString(),
              });
              expired.length = Math.min(expired.length, EXPIRED_KEPT);
              log(`wallet: ${view.method} of ${view.origin} expired unanswered after ${expiryMs} ms`);
              remember(view, 'expired');
              resolve('expired');
            }, expiryMs)
          : undefined;
      pending.set(view.id, {
        view,
        resolve: (ending) => {
          clearTimeout(timer);
          remember(view, typeof ending === 'string' ? ending : ending.approved ? 'approved' : 'rejected');
          resolve(ending);
        },
      });
      signal?.addEventListener(
        'abort',
        () => {
          const entry = pending.get(view.id);
          if (!entry) return;
          pending.delete(view.id);
          log(`wallet: ${view.origin} disconnected or its session ended; its pending request was dropped`);
          entry.resolve({ approved: false });
        },
        { once: true },
      );
    });
  }

  const stamp = () => ({ id: randomUUID(), createdAt: new Date().toISOString() });

  return {
    /** Queues a connection request until the approval page answers it. */
    async request(
      request: ApprovalRequest,
      options: { signal?: AbortSignal } = {},
    ): Promise<ApprovalDecision> {
      const view: PendingConnection = { kind: 'connection', ...stamp(), ...request };
      const scopes = Object.keys(request.scopes).join(', ');
      const decision = await enqueue(view, 'wallet_createSession', options.signal, scopes);
      return decision === 'account-removed' || decision === 'expired' ? { approved: false } : decision;
    },
    /** Queues a signing request until the approval page answers it (or its account leaves the wallet). */
    async requestSignature(
      request: SigningRequest,
      options: { signal?: AbortSignal } = {},
    ): Promise<SignatureOutcome> {
      const expiresAt = new Date(Date.now() + expiryMs).toISOString();
      // No warnings is said by leaving them out, so the page and the API never show an empty list.
      const { warnings, ...details } = request.details;
      const shown = warnings?.length ? { ...details, warnings } : details;
      const view: PendingSignature = { kind: 'signature', ...stamp(), expiresAt, ...request, details: shown };
      const asks = `${request.method} on ${request.scope}`;
      const decision = await enqueue(view, request.method, options.signal, asks);
      if (decision === 'account-removed' || decision === 'expired') return decision;
      return decision.approved ? 'approved' : 'rejected';
    },
    list(): PendingApproval[] {
      return [...pending.values()].map((entry) => entry.view);
    },
    /** The latest signing requests that expired unanswered, newest first. */
    expired(): ExpiredSignature[] {
      return [...expired];
    },
    /** The latest signing requests that ended (approved, rejected, expired, withdrawn), newest first. */
    history(): AnsweredSignature[] {
      return [...history];
    },
    /** How long a signing request waits for a person. */
    expiryMs,
    /** Answers a pending request (a signature reads only `approved`); false when there is no such request. */
    decide(id: string, decision: ApprovalDecision): boolean {
      const entry = pending.get(id);
      if (!entry) return false;
      pending.delete(id);
      log(
        `wallet: ${entry.view.kind} request of ${entry.view.origin} ${decision.approved ? 'approved' : 'rejected'} on the approval page`,
      );
      entry.resolve(decision);
      return true;
    },
    /** Withdraws the signing requests of accounts the wallet no longer holds (a logout, another user). */
    withdrawSignatures(stillHeld: (namespace: string, address: string) => boolean) {
      for (const [id, entry] of pending) {
        const { view } = entry;
        if (view.kind !== 'signature') continue;
        if (stillHeld(view.scope.split(':')[0], view.account)) continue;
        pending.delete(id);
        log(`wallet: ${view.method} of ${view.origin} withdrawn: its account left the wallet`);
        entry.resolve('account-removed');
      }
    },
    /** Rejects everything still waiting (the wallet is closing). */
    rejectAll() {
      for (const [id, entry] of pending) {
        pending.delete(id);
        entry.resolve({ approved: false });
      }
    },
  };
}

export type ApprovalQueue = ReturnType<typeof createApprovalQueue>;
