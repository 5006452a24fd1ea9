/**
 * Waits for SIGINT or SIGTERM (or, in a worker process, the supervisor's `shutdown` message), then
 * runs `close` once. A second signal exits at once; a message while closing is ignored (a Ctrl-C
 * reaches the workers both as a signal and through the supervisor).
 */
export function onShutdown(close: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let closing = false;
    const stop = (why: NodeJS.Signals | 'shutdown') => {
      if (closing) {
        if (why !== 'shutdown') process.exit(130);
        return;
      }
      closing = true;
      if (why !== 'shutdown') console.error(`\n${why}: shutting down`);
      close()
        .catch((error) => console.error('error while shutting down:', error))
        .finally(() => {
          process.off('message', onMessage);
          resolve();
        });
    };
    const onMessage = (message: unknown) => {
      if (message === SHUTDOWN_MESSAGE) stop('shutdown');
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (process.send) process.on('message', onMessage);
  });
}

/** What a supervisor sends a worker process to make it finish its requests and exit. */
export const SHUTDOWN_MESSAGE = 'portico:shutdown';
