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

/** Keeps values in a JSON file (Node); the file holds only the sessionId. */
export class FileStorage implements StorageAdapter {
  constructor(private readonly path: string) {}
  private async read(): Promise<Record<string, string>> {
    const { readFile } = await import('node:fs/promises');
    try {
      return JSON.parse(await readFile(this.path, 'utf8')) as Record<string, string>;
    } catch {
      return {};
    }
  }
  private async write(values: Record<string, string>): Promise<void> {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(this.path, JSON.stringify(values), { mode: 0o600 });
  }
  async get(key: string): Promise<string | null> {
    return (await this.read())[key] ?? null;
  }
  async set(key: string, value: string): Promise<void> {
    const values = await this.read();
    values[key] = value;
    await this.write(values);
  }
  async remove(key: string): Promise<void> {
    const values = await this.read();
    delete values[key];
    await this.write(values);
  }
}

/** localStorage when present, memory otherwise. */
export function defaultStorage(): StorageAdapter {
  const g = globalThis as { localStorage?: WebStorage };
  return g.localStorage ? new BrowserStorage(g.localStorage) : new MemoryStorage();
}
