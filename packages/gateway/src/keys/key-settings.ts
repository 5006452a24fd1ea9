import { hashApiKey } from './api-key.ts';
import { KeyInputError } from './key-input-error.ts';

/**
 * Per-key security settings (as Infura offers them): allowlists of origins, user agents, contract
 * addresses and methods, and an optional key secret sent with HTTP Basic. Each non-empty list
 * must match (lists combine with AND, entries with OR); an empty list allows everything.
 */
export type KeySettings = {
  allowedOrigins: string[];
  allowedUserAgents: string[];
  allowedContracts: string[];
  allowedMethods: string[];
  /** SHA-256 of the key secret; null when the key needs no secret. Never shown. */
  secretHash: string | null;
};

export type KeySettingsInput = Partial<Omit<KeySettings, 'secretHash'>>;

export const EMPTY_SETTINGS: KeySettings = {
  allowedOrigins: [],
  allowedUserAgents: [],
  allowedContracts: [],
  allowedMethods: [],
  secretHash: null,
};

const MAX_ENTRIES = 30;
const ORIGIN = /^(https?:\/\/)?(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/i;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const METHOD = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

type ListRule = { test: (v: string) => boolean; rule: string; normalise: (v: string) => string };

/** The lists by field name (a Map: a field named `constructor` or `__proto__` is unknown, not a prototype member). */
const LISTS: ReadonlyMap<keyof KeySettingsInput, ListRule> = new Map<keyof KeySettingsInput, ListRule>([
  [
    'allowedOrigins',
    {
      test: (v) => ORIGIN.test(v),
      rule: 'an origin such as https://app.example.com or *.example.com',
      normalise: (v) => v.toLowerCase(),
    },
  ],
  [
    'allowedUserAgents',
    { test: (v) => v.length > 0 && v.length <= 200, rule: 'a non-empty text', normalise: (v) => v },
  ],
  [
    'allowedContracts',
    { test: (v) => ADDRESS.test(v), rule: 'a 20-byte hex address', normalise: (v) => v.toLowerCase() },
  ],
  ['allowedMethods', { test: (v) => METHOD.test(v), rule: 'a JSON-RPC method name', normalise: (v) => v }],
]);

/** Validates allowlist changes (at most 30 entries per list); throws KeyInputError naming the field. */
export function validateSettingsInput(input: unknown): KeySettingsInput {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new KeyInputError('settings must be an object');
  }
  const result: KeySettingsInput = {};
  for (const [field, value] of Object.entries(input)) {
    const list = LISTS.get(field as keyof KeySettingsInput);
    if (!list) {
      throw new KeyInputError(
        `settings.${field.slice(0, 64)} is unknown (allowed: ${[...LISTS.keys()].join(', ')})`,
      );
    }
    if (!Array.isArray(value) || value.length > MAX_ENTRIES) {
      throw new KeyInputError(`settings.${field} must be a list of at most ${MAX_ENTRIES} entries`);
    }
    result[field as keyof KeySettingsInput] = value.map((entry, i) => {
      if (typeof entry !== 'string' || !list.test(entry))
        throw new KeyInputError(`settings.${field}[${i}] must be ${list.rule}`);
      return list.normalise(entry);
    });
  }
  return result;
}

export function parseStoredSettings(text: unknown): KeySettings {
  const value = typeof text === 'string' ? JSON.parse(text) : (text ?? {});
  return { ...EMPTY_SETTINGS, ...(value as Partial<KeySettings>) };
}

/** The settings as shown to operators: lists, and whether a secret is required (never the secret). */
export function describeSettings(settings: KeySettings) {
  const { secretHash, ...lists } = settings;
  return { ...lists, secretRequired: secretHash !== null };
}

export function originAllowed(settings: KeySettings, origin: string | undefined): boolean {
  if (settings.allowedOrigins.length === 0) return true;
  if (!origin) return false;
  const url = origin.toLowerCase();
  const host = url.replace(/^https?:\/\//, '');
  return settings.allowedOrigins.some((allowed) => {
    const withScheme = /^https?:\/\//.test(allowed);
    const subject = withScheme ? url : host;
    if (allowed.includes('*.')) {
      const [prefix, suffix] = allowed.split('*.');
      return (
        subject.startsWith(prefix) && (subject.endsWith(`.${suffix}`) || subject === `${prefix}${suffix}`)
      );
    }
    return subject === allowed;
  });
}

export function userAgentAllowed(settings: KeySettings, userAgent: string | undefined): boolean {
  if (settings.allowedUserAgents.length === 0) return true;
  return !!userAgent && settings.allowedUserAgents.some((allowed) => userAgent.includes(allowed));
}

export function secretAccepted(settings: KeySettings, authorization: string | undefined): boolean {
  if (settings.secretHash === null) return true;
  if (!authorization?.startsWith('Basic ')) return false;
  const decoded = Buffer.from(authorization.slice(6), 'base64').toString();
  const secret = decoded.slice(decoded.indexOf(':') + 1);
  return hashApiKey(secret) === settings.secretHash;
}

export function methodAllowed(settings: KeySettings, method: string): boolean {
  return settings.allowedMethods.length === 0 || settings.allowedMethods.includes(method);
}

/** `contracts`: the addresses a call touches (its method's spec says), undefined when it names none. */
export function contractsAllowed(settings: KeySettings, contracts: string[] | undefined): boolean {
  if (settings.allowedContracts.length === 0) return true;
  if (contracts === undefined) return true;
  return contracts.length > 0 && contracts.every((c) => settings.allowedContracts.includes(c.toLowerCase()));
}
