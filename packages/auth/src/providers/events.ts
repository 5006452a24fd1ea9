type Listener = (...args: never[]) => void;

/**
 * The event surface EIP-1193 providers offer (`on`, `removeListener`, …), without Node's `events`
 * module so browser bundles need no polyfill. A throwing listener does not stop the others.
 *
 * Each method has a typed signature and a loose one (any event name, any listener): the loose one
 * is what lets a provider stand where viem, ethers and wagmi declare their own EIP-1193 event maps.
 */
export class ProviderEvents<Events extends { [K in keyof Events]: (...args: never[]) => void }> {
  private readonly listeners = new Map<PropertyKey, Listener[]>();

  on<K extends keyof Events>(event: K, listener: Events[K]): this;
  on(event: string, listener: Listener): this;
  on(event: PropertyKey, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  addListener<K extends keyof Events>(event: K, listener: Events[K]): this;
  addListener(event: string, listener: Listener): this;
  addListener(event: PropertyKey, listener: Listener): this {
    return this.on(event as string, listener);
  }

  once<K extends keyof Events>(event: K, listener: Events[K]): this;
  once(event: string, listener: Listener): this;
  once(event: PropertyKey, listener: Listener): this {
    const wrapped = (...args: never[]) => {
      this.removeListener(event as string, wrapped);
      listener(...args);
    };
    return this.on(event as string, wrapped);
  }

  removeListener<K extends keyof Events>(event: K, listener: Events[K]): this;
  removeListener(event: string, listener: Listener): this;
  removeListener(event: PropertyKey, listener: Listener): this {
    const list = this.listeners.get(event) ?? [];
    const index = list.lastIndexOf(listener);
    if (index >= 0) this.listeners.set(event, [...list.slice(0, index), ...list.slice(index + 1)]);
    return this;
  }

  off<K extends keyof Events>(event: K, listener: Events[K]): this;
  off(event: string, listener: Listener): this;
  off(event: PropertyKey, listener: Listener): this {
    return this.removeListener(event as string, listener);
  }

  removeAllListeners(event?: keyof Events): this {
    if (event === undefined) this.listeners.clear();
    else this.listeners.delete(event);
    return this;
  }

  listenerCount(event: keyof Events): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  protected emit<K extends keyof Events>(event: K, ...args: Parameters<Events[K]>): void {
    for (const listener of this.listeners.get(event) ?? []) {
      try {
        (listener as (...a: Parameters<Events[K]>) => void)(...args);
      } catch (error) {
        // A dapp's listener failing must not break the provider or the other listeners.
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
