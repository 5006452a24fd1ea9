import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest } from '@portico/multichain';
import { RpcError } from './rpc.ts';
import type { SigningRequest } from './signing/types.ts';

/** A dapp asks to connect (wallet_createSession): the person picks networks and accounts. */
export type PendingConnection = { kind: 'connection'; id: string; createdAt: string } & ApprovalRequest;
/** A dapp asks the wallet to sign (or sign and send): the person approves or rejects it. */
export type PendingSignature = { kind: 'signature'; id: string; createdAt: string } & SigningRequest;
export type PendingApproval = PendingConnection | PendingSignature;

/** How a signing request ended: answered, or withdrawn because its account left the wallet. */
export type SignatureOutcome = 'approved' | 'rejected' | 'account-removed';

type Entry = { view: PendingApproval; resolve: (decision: ApprovalDecision | 'account-removed') => void };

/**
 * Requests waiting for a person, connections and signatures alike: each resolves when the approval
 * page answers it. One request per origin waits at a time, whatever its kind (another is -32002, as
 * MetaMask answers a second connection request); a request whose dapp disconnects is dropped.
 */
export function createApprovalQueue(queueOptions: { onLog?: (line: string) => void } = {}) {
  const pending = new Map<string, Entry>();
  const log = queueOptions.onLog ?? (() => {});

  function enqueue(
    view: PendingApproval,
    method: string,
    signal: AbortSignal | undefined,
    asks: string,
  ): Promise<ApprovalDecision | 'account-removed'> {
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
      pending.set(view.id, { view, resolve });
      signal?.addEventListener(
        'abort',
        () => {
          if (!pending.delete(view.id)) return;
          log(`wallet: ${view.origin} disconnected or its session ended; its pending request was dropped`);
          resolve({ approved: false });
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
      return decision === 'account-removed' ? { approved: false } : decision;
    },
    /** Queues a signing request until the approval page answers it (or its account leaves the wallet). */
    async requestSignature(
      request: SigningRequest,
      options: { signal?: AbortSignal } = {},
    ): Promise<SignatureOutcome> {
      const view: PendingSignature = { kind: 'signature', ...stamp(), ...request };
      const asks = `${request.method} on ${request.scope}`;
      const decision = await enqueue(view, request.method, options.signal, asks);
      if (decision === 'account-removed') return decision;
      return decision.approved ? 'approved' : 'rejected';
    },
    list(): PendingApproval[] {
      return [...pending.values()].map((entry) => entry.view);
    },
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
