// The gateway's one reading of a hex quantity it reasons about: a block number, a log index.

const HEX_NUMBER = /^0x[0-9a-fA-F]{1,16}$/;

/**
 * A hex quantity of up to 64 bits (a block number, a log index) as a number; undefined for anything
 * else (tags, garbage: the parameters of pass-through methods are not checked). Beyond 2^53 it is
 * rounded, which still compares as far above any head.
 */
export function hexNumberOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !HEX_NUMBER.test(value)) return undefined;
  return Number.parseInt(value.slice(2), 16);
}
