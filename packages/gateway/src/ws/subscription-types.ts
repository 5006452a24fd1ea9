/** eth_subscribe types the gateway relays (and prices) over WebSocket. */
export const SUBSCRIPTION_TYPES = ['newHeads', 'logs'] as const;

export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];

/** Credits drawn from the key's daily balance for each notification delivered, per subscription type. */
export type SubscriptionCosts = Readonly<Record<SubscriptionType, number>>;

/** Our defaults (configurable per network with `subscriptionCosts`). */
export const DEFAULT_SUBSCRIPTION_COSTS: SubscriptionCosts = { newHeads: 50, logs: 300 };

export function isSubscriptionType(value: unknown): value is SubscriptionType {
  return typeof value === 'string' && (SUBSCRIPTION_TYPES as readonly string[]).includes(value);
}

/** The usage and metrics name of a notification: `eth_subscription:newHeads`, `eth_subscription:logs`. */
export function notificationMethod(type: SubscriptionType): string {
  return `eth_subscription:${type}`;
}
