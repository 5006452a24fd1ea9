import { generateApiKey, generateKeyId, hashApiKey, keyPrefix } from './api-key.ts';
import { KeyInputError } from './key-input-error.ts';
import { type KeySettings, type KeySettingsInput, validateSettingsInput } from './key-settings.ts';

/** What the gateway knows of an API key; never the key itself. */
export type ApiKeyRecord = {
  id: string;
  name: string;
  /** The first characters of the key, for recognising it in listings. */
  prefix: string;
  /** The project the key belongs to (an operator may keep several). */
  project: string;
  dailyCredits: number;
  /** Credits a key may spend per second; null for no per-second cap. */
  creditsPerSecond: number | null;
  /** Allowlists and key secret; empty lists allow everything. */
  settings: KeySettings;
  createdAt: Date;
  revokedAt: Date | null;
};

export type CreateKeyParameters = {
  name: string;
  project?: string;
  dailyCredits?: number;
  creditsPerSecond?: number | null;
  /** Use this key text instead of a random one (dev keys). */
  key?: string;
};

export type KeyChanges = {
  name?: string;
  project?: string;
  dailyCredits?: number;
  creditsPerSecond?: number | null;
  /** Replaces the given allowlists (lists not named stay as they are). */
  settings?: KeySettingsInput;
  /** SHA-256 of a new key secret, or null to require none. */
  secretHash?: string | null;
};

/** The fields a key's changes set (validated); fields not named stay undefined, i.e. unchanged. */
export type ValidatedKeyChanges = {
  name?: string;
  project?: string;
  dailyCredits?: number;
  creditsPerSecond?: number | null;
  settings: KeySettings;
};

/**
 * Validates `changes` against the key's current record, once for every store: the scalar fields
 * changed (undefined where not named) and the whole settings after the change. Throws KeyInputError
 * naming the first invalid field.
 */
export function validateKeyChanges(current: ApiKeyRecord, changes: KeyChanges): ValidatedKeyChanges {
  const validated: ValidatedKeyChanges = { settings: current.settings };
  if (changes.name !== undefined) validated.name = validateKeyName(changes.name);
  if (changes.project !== undefined) validated.project = validateProject(changes.project);
  if (changes.dailyCredits !== undefined) validated.dailyCredits = validateDailyCredits(changes.dailyCredits);
  if (changes.creditsPerSecond !== undefined)
    validated.creditsPerSecond = validateCreditsPerSecond(changes.creditsPerSecond);
  const lists = changes.settings === undefined ? {} : validateSettingsInput(changes.settings);
  validated.settings = {
    ...current.settings,
    ...lists,
    secretHash: changes.secretHash === undefined ? current.settings.secretHash : changes.secretHash,
  };
  return validated;
}

export interface KeyStore {
  /** Creates a key; the returned `key` is the only time the full key is seen. */
  create(parameters: CreateKeyParameters): Promise<{ key: string; record: ApiKeyRecord }>;
  list(): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | undefined>;
  update(id: string, changes: KeyChanges): Promise<ApiKeyRecord | undefined>;
  /** Replaces the key text of a live key (the old text stops working); undefined for an unknown or revoked id. */
  rotate(id: string): Promise<{ key: string; record: ApiKeyRecord } | undefined>;
  /** Revokes by id; returns the revoked record, or undefined for an unknown id. */
  revoke(id: string): Promise<ApiKeyRecord | undefined>;
  /** The live (not revoked) record for a presented key, or undefined. On the request path. */
  authenticate(key: string): ApiKeyRecord | undefined | Promise<ApiKeyRecord | undefined>;
  close(): Promise<void>;
}

export const DEFAULT_DAILY_CREDITS = 3_000_000;

export function validateKeyName(name: unknown): string {
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > 100) {
    throw new KeyInputError('name must be a non-empty string of at most 100 characters');
  }
  return name.trim();
}

export function validateDailyCredits(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new KeyInputError('dailyCredits must be a non-negative integer');
  }
  return value;
}

export const DEFAULT_PROJECT = 'default';

export function validateProject(value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9 _.-]{0,63}$/.test(value)) {
    throw new KeyInputError('project must be 1-64 characters: letters, digits, space, _ . -');
  }
  return value;
}

export function validateCreditsPerSecond(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new KeyInputError('creditsPerSecond must be a positive integer or null (no cap)');
  }
  return value;
}

/** Checks a key text chosen by the caller (dev keys): long enough and URL-safe. */
export function validateChosenKey(key: string): string {
  if (key.length < 16 || key.length > 128 || !/^[A-Za-z0-9_-]+$/.test(key)) {
    throw new KeyInputError('a chosen key must be 16-128 characters of A-Z, a-z, 0-9, _ or -');
  }
  return key;
}

/** A validated new key: its text (shown once) and the fields every store writes. */
export function prepareNewKey(parameters: CreateKeyParameters) {
  const key = parameters.key === undefined ? generateApiKey() : validateChosenKey(parameters.key);
  return {
    key,
    id: generateKeyId(),
    name: validateKeyName(parameters.name),
    keyHash: hashApiKey(key),
    prefix: keyPrefix(key),
    project: validateProject(parameters.project ?? DEFAULT_PROJECT),
    dailyCredits: validateDailyCredits(parameters.dailyCredits ?? DEFAULT_DAILY_CREDITS),
    creditsPerSecond: validateCreditsPerSecond(parameters.creditsPerSecond ?? null),
  };
}
