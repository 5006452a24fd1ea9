/** What the gateway knows of an API key; never the key itself. */
export type ApiKeyRecord = {
  id: string;
  name: string;
  /** The first characters of the key, for recognising it in listings. */
  prefix: string;
  dailyCredits: number;
  createdAt: Date;
  revokedAt: Date | null;
};

export type CreateKeyParameters = { name: string; dailyCredits?: number; key?: string };

export interface KeyStore {
  /** Creates a key; the returned `key` is the only time the full key is seen. */
  create(parameters: CreateKeyParameters): Promise<{ key: string; record: ApiKeyRecord }>;
  list(): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  update(id: string, changes: { name?: string; dailyCredits?: number }): Promise<ApiKeyRecord | undefined>;
  /** Revokes by id; returns the revoked record, or undefined for an unknown id. */
  revoke(id: string): Promise<ApiKeyRecord | undefined>;
  /** The live (not revoked) record for a presented key, or undefined. On the request path. */
  authenticate(key: string): ApiKeyRecord | undefined | Promise<ApiKeyRecord | undefined>;
  close(): Promise<void>;
}

export const DEFAULT_DAILY_CREDITS = 3_000_000;

export function validateKeyName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 100) {
    throw new RangeError('name must be a non-empty string of at most 100 characters');
  }
  return name.trim();
}

export function validateDailyCredits(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError('dailyCredits must be a non-negative integer');
  }
  return value;
}
