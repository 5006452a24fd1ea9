/** A message channel between a dapp and a wallet carrying JSON-RPC objects. */
export interface MultichainTransport {
  /** Opens (or re-opens, after a drop) the connection. */
  connect(): Promise<void>;
  /** Sends one JSON-RPC request; throws when not connected. */
  send(message: Record<string, unknown>): void;
  /** Closes the connection on purpose (no onDisconnect call). */
  close(): Promise<void>;
  isConnected(): boolean;
  /** Every message from the wallet: responses and notifications. */
  onMessage(listener: (message: unknown) => void): () => void;
  /** Fires when an open connection drops without close() being called. */
  onDisconnect(listener: (error: Error) => void): () => void;
}

/** Listener bookkeeping shared by the transports. */
export function createListeners<T>() {
  const listeners = new Set<(value: T) => void>();
  return {
    add(listener: (value: T) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(value: T) {
      for (const listener of [...listeners]) {
        try {
          listener(value);
        } catch {
          // a listener's failure must not break delivery to the others
        }
      }
    },
  };
}
