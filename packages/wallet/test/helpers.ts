import assert from 'node:assert/strict';
import { MultichainApiError } from '@metamask/multichain-api-client';
import type { Anvil } from '@portico/devchain';
import { MultichainRpcError, type SessionScopes, type WalletNotification } from '@portico/multichain';
import type { Locator } from 'playwright-core';
import type { PendingApproval, Wallet } from '../src/index.ts';

/**
 * Stops anvil while holding the event loop open: `Anvil.stop()` waits for the exit of an unref'd
 * child, so when it is the last thing a test file does node may end the loop first and fail the
 * suite with "Promise resolution is still pending". (To be fixed in @portico/devchain.)
 */
export async function stopAnvil(anvil: Anvil | undefined): Promise<void> {
  if (!anvil) return;
  const keepAlive = setInterval(() => {}, 1000);
  try {
    await anvil.stop();
  } finally {
    clearInterval(keepAlive);
  }
}

/** The JSON-RPC error a dapp call failed with (either client); the test fails if it succeeds. */
export async function apiError(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof MultichainApiError) {
      const { code, message } = error.cause as { code: number; message: string };
      return { code, message };
    }
    if (error instanceof MultichainRpcError) return { code: error.code, message: error.message };
    throw error;
  }
  assert.fail('expected the call to fail');
}

/** A request's details on the approval page, label → text (waits for the request to show). */
export async function detailsOf(request: Locator): Promise<Record<string, string>> {
  await request.waitFor();
  return request.locator('dl.details').evaluate((list) => {
    const details: Record<string, string> = {};
    for (const term of list.querySelectorAll('dt'))
      details[term.textContent ?? ''] = term.nextElementSibling?.textContent ?? '';
    return details;
  });
}

/** Resolves with the next wallet_sessionChanged a client hears (bounded by the test's timeout). */
export function nextSessionChanged(client: {
  onNotification: (listener: (data: WalletNotification) => void) => unknown;
}): Promise<SessionScopes> {
  return new Promise((resolve) => {
    client.onNotification((notification) => {
      if (notification.method === 'wallet_sessionChanged') resolve(notification.params.sessionScopes);
    });
  });
}

/** A call to the wallet's approval API with the approval page's token; fails the test unless 200. */
export async function api(wallet: Wallet, path: string, init: RequestInit = {}): Promise<unknown> {
  const [base, fragment] = wallet.approvalUrl.split('/approve#token=');
  const response = await fetch(`${base}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${fragment}`, 'content-type': 'application/json' },
  });
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

/** Waits for the wallet to list a pending approval (bounded by the test runner's timeout). */
export async function waitForApproval<K extends PendingApproval['kind'] = PendingApproval['kind']>(
  wallet: Wallet,
  kind?: K,
): Promise<Extract<PendingApproval, { kind: K }>> {
  for (;;) {
    const list = (await api(wallet, '/api/approvals')) as PendingApproval[];
    const found = list.find((item) => kind === undefined || item.kind === kind);
    if (found) return found as Extract<PendingApproval, { kind: K }>;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Answers a pending approval as the page would. */
export async function answer(wallet: Wallet, id: string, decision: unknown): Promise<void> {
  await api(wallet, `/api/approvals/${id}`, { method: 'POST', body: JSON.stringify(decision) });
}
