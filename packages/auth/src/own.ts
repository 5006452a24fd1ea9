// Lookups by names that come from outside (login parameters, verifier and claim names, JSON keys)
// must never reach Object.prototype: `record['constructor']` is a function and `record['__proto__']`
// is the prototype itself, so a name like that would otherwise look configured.

/** `record[key]` when `key` is the record's own property, else undefined. */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Sets an own, enumerable property, even for names such as `__proto__` (a plain assignment would
 * replace the object's prototype instead).
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
