import { randomUUID } from 'node:crypto';
import type { ApprovalDecision, ApprovalRequest } from '@portico/multichain';

export type PendingApproval = { id: string; createdAt: string } & ApprovalRequest;

/** Connection requests waiting for a person: each resolves when the approval page answers it. */
export function createApprovalQueue(options: { onLog?: (line: string) => void } = {}) {
  const pending = new Map<string, { view: PendingApproval; resolve: (decision: ApprovalDecision) => void }>();
  return {
    request(request: ApprovalRequest): Promise<ApprovalDecision> {
      const id = randomUUID();
      options.onLog?.(
        `wallet: ${request.origin} asks for ${Object.keys(request.scopes).join(', ')}; waiting for the approval page`,
      );
      return new Promise((resolve) => {
        pending.set(id, { view: { id, createdAt: new Date().toISOString(), ...request }, resolve });
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
      options.onLog?.(
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
