import assert from 'node:assert/strict';
import { MultichainApiError } from '@metamask/multichain-api-client';
import type { Anvil } from '@portico/devchain';
import { MultichainRpcError, type SessionScopes, type WalletNotification } from '@portico/multichain';
import type { Locator } from 'playwright-core';

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
