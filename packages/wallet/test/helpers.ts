import type { Anvil } from '@portico/devchain';

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
