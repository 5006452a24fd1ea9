import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest } from '@portico/multichain';
import { RpcError } from './rpc.ts';

export type PendingApproval = { id: string; createdAt: string } & ApprovalRequest;

/** Connection requests waiting for a person: each resolves when the approval page answers it. */
export function createApprovalQueue(queueOptions: { onLog?: (line: string) => void } = {}) {
  const pending = new Map<string, { view: PendingApproval; resolve: (decision: ApprovalDecision) => void }>();
  return {
    /**
     * Queues a request until the approval page answers it. One request per origin waits at a time
     * (another is -32002, as MetaMask does); a request whose dapp disconnects is dropped.
     */
    request(request: ApprovalRequest, options: { signal?: AbortSignal } = {}): Promise<ApprovalDecision> {
      if ([...pending.values()].some((entry) => entry.view.origin === request.origin)) {
        return Promise.reject(
          new RpcError(
            -32002,
            `Request of type 'wallet_createSession' already pending for origin ${request.origin}. Please wait.`,
          ),
        );
      }
      const id = randomUUID();
      queueOptions.onLog?.(
        `wallet: ${request.origin} asks for ${Object.keys(request.scopes).join(', ')}; waiting for the approval page`,
      );
      return new Promise((resolve) => {
        pending.set(id, { view: { id, createdAt: new Date().toISOString(), ...request }, resolve });
        options.signal?.addEventListener(
          'abort',
          () => {
            if (!pending.delete(id)) return;
            queueOptions.onLog?.(`wallet: ${request.origin} disconnected; its pending request was dropped`);
            resolve({ approved: false });
          },
          { once: true },
        );
      });
    },
    list(): PendingApproval[] {
      return [...pending.values()].map((entry) => entry.view);
    },
    /** Answers a pending request; false when there is no such request. */
    decide(id: string, decision: ApprovalDecision): boolean {
      const entry = pending.get(id);
      if (!entry) return false;
      pending.delete(id);
      queueOptions.onLog?.(
        `wallet: ${entry.view.origin} ${decision.approved ? 'approved' : 'rejected'} on the approval page`,
      );
      entry.resolve(decision);
      return true;
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
