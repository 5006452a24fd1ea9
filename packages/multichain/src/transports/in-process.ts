import type { EngineConnection, MultichainEngine } from '../engine/engine.ts';
import { createListeners, type MultichainTransport } from './types.ts';

/** A transport straight into an engine in the same process, for embedded wallets and tests. */
export function createInProcessTransport(
  engine: MultichainEngine,
  options: { origin: string },
): MultichainTransport {
  const messages = createListeners<unknown>();
  const disconnects = createListeners<Error>();
  let connection: EngineConnection | undefined;
  return {
    async connect() {
      connection ??= engine.connect(options.origin, (notification) => messages.emit(notification));
    },
    send(message) {
      const current = connection;
      if (!current) throw new Error('not connected to the wallet');
      void current.handle(structuredClone(message)).then((response) => {
        if (response && connection === current) messages.emit(response);
      });
    },
    async close() {
      connection?.close();
      connection = undefined;
    },
    isConnected: () => connection !== undefined,
    onMessage: (listener) => messages.add(listener),
    onDisconnect: (listener) => disconnects.add(listener),
  };
}
