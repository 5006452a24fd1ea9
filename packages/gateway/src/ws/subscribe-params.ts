// What a client's eth_subscribe may ask, checked before anything is charged.
import { describeValue } from '../rpc/describe-value.ts';
import { invalidParams } from '../rpc/errors.ts';
import { isSubscriptionType, SUBSCRIPTION_TYPES } from '../types.ts';

export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;

/** Checks eth_subscribe parameters before anything is charged (a refusal is -32602). */
export function checkSubscribe(params: unknown[], active: number) {
  const [type, filter] = params;
  if (!isSubscriptionType(type)) {
    throw invalidParams(
      `eth_subscribe: params[0] must be one of ${SUBSCRIPTION_TYPES.join(', ')}, got ${describeValue(type)}`,
    );
  }
  if (type === 'newHeads' && params.length > 1)
    throw invalidParams('eth_subscribe: newHeads takes no filter');
  if (
    type === 'logs' &&
    params.length > 1 &&
    (typeof filter !== 'object' || filter === null || Array.isArray(filter))
  )
    throw invalidParams(
      'eth_subscribe: the logs filter (params[1]) must be an object with address and/or topics',
    );
  if (params.length > 2) throw invalidParams('eth_subscribe takes at most two parameters');
  if (active >= MAX_SUBSCRIPTIONS_PER_CONNECTION)
    throw invalidParams(
      `eth_subscribe: at most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection; eth_unsubscribe some first`,
    );
}
