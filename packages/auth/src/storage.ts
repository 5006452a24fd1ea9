/**
 * Where the library keeps the sessionId — and nothing else: keys are re-read from the service and
 * decrypted with it. Replace it to use the platform's secure storage (Keychain, EncryptedStorage).
 */
export interface StorageAdapter {
  get(key: string): Promise<string | null> | string | null;
  set(key: string, value: string): Promise<void> | void;
  remove(key: string): Promise<void> | void;
}

/** Keeps values in memory (default outside browsers; a restart forgets the session). */
export class MemoryStorage implements StorageAdapter {
  private readonly values = new Map<string, string>();
  get(key: string): string | null {
    return this.values.get(key) ?? null;
  }
  set(key: string, value: string): void {
    this.values.set(key, value);
  }
  remove(key: string): void {
    this.values.delete(key);
  }
}

interface WebStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** Uses `window.localStorage` (default in browsers). */
export class BrowserStorage implements StorageAdapter {
  constructor(private readonly store: WebStorage) {}
  get(key: string): string | null {
    return this.store.getItem(key);
  }
  set(key: string, value: string): void {
    this.store.setItem(key, value);
  }
  remove(key: string): void {
    this.store.removeItem(key);
  }
}

/** localStorage when present, memory otherwise. */
export function defaultStorage(): StorageAdapter {
  const g = globalThis as { localStorage?: WebStorage };
  return g.localStorage ? new BrowserStorage(g.localStorage) : new MemoryStorage();
}
