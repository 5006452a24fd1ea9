/** Waits for SIGINT or SIGTERM, then runs `close` once (a second signal exits at once). */
export function onShutdown(close: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let closing = false;
    const stop = (signal: NodeJS.Signals) => {
      if (closing) process.exit(130);
      closing = true;
      console.error(`\n${signal}: shutting down`);
      close()
        .catch((error) => console.error('error while shutting down:', error))
        .finally(() => resolve());
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
