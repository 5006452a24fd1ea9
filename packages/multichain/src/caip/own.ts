/**
 * `record[key]` when `key` is the record's own property, else `undefined`. Every lookup by a name
 * that comes from outside (a dapp's scope key or method, the approval API's answer) goes through
 * here, so `__proto__`, `constructor` or `toString` never reach `Object.prototype`.
 */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
