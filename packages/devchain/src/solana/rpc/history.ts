/**
 * getSignaturesForAddress, following agave: address, then before/until, then limit are checked
 * (-32602 `Invalid param: …` / `Invalid limit; max 1000`); `processed` is refused
 * (`Method does not support commitment below \`confirmed\``); minContextSlot above the slot of the
 * commitment is -32016. Unknown config members are ignored, as agave's serde config does.
 */
import { invalidParams } from '../errors.ts';
import { atLeastConfirmed, commitmentOf, configAt, contextSlot, parseSignature, pubkeyAt } from './params.ts';
import type { Handler } from './types.ts';

export const MAX_SIGNATURES_LIMIT = 1000;

function optionalSignature(value: unknown, key: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw invalidParams(`Invalid params: invalid type for \`${key}\`, expected a string.`);
  return parseSignature(value);
}

export const getSignaturesForAddress: Handler = (ledger, params) => {
  const address = pubkeyAt(params, 0);
  const config = configAt(params, 1);
  const before = optionalSignature(config.before, 'before');
  const until = optionalSignature(config.until, 'until');
  let limit = MAX_SIGNATURES_LIMIT;
  if (config.limit !== undefined && config.limit !== null) {
    if (typeof config.limit !== 'number' || !Number.isInteger(config.limit) || config.limit < 0) {
      throw invalidParams(
        `Invalid params: invalid value: \`${String(config.limit)}\` for \`limit\`, expected usize.`,
      );
    }
    limit = config.limit;
  }
  if (limit === 0 || limit > MAX_SIGNATURES_LIMIT) {
    throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_LIMIT}`);
  }
  const commitment = commitmentOf(config);
  atLeastConfirmed(commitment);
  contextSlot(ledger, config);
  return ledger.signaturesForAddress(address, { before, until, limit, commitment });
};
