import type { CreditLedger } from '../credits/ledger.ts';
import type { RateLimiter } from '../credits/rate-limiter.ts';
import type { UsageRecorder } from '../credits/usage-recorder.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import type { Network } from '../network.ts';
import { GatewayError } from '../rpc/errors.ts';
import {
  errorResponse,
  type JsonRpcResponse,
  type ParsedBody,
  type ParsedItem,
  parseBody,
  resultResponse,
} from '../rpc/jsonrpc.ts';
import { charge, limitRate } from './charge.ts';
import { enforceItemSettings } from './enforce-settings.ts';
import { type CacheStatus, forward } from './forward.ts';
import { resolveMethod } from './resolve-method.ts';

export type RpcDependencies = {
  ledger: CreditLedger;
  rateLimiter: RateLimiter;
  usage: UsageRecorder;
  /** Largest number of items in one batch. */
  maxBatchSize: number;
  /** Told of failures the gateway itself could not help (upstream down, bugs); never of keys. */
  onInternalError?: (error: unknown, context: { network: string; method: string; keyId: string }) => void;
};

export type RpcOutcome = {
  /** HTTP status of the whole answer. */
  status: number;
  /** undefined when every item was a notification (answered with 204). */
  body: JsonRpcResponse | JsonRpcResponse[] | undefined;
  /** Credits left on the key after this request, when anything was charged or looked up. */
  remaining?: number;
  /** For a single request: whether the cache answered it. */
  cache?: CacheStatus;
};

type ItemOutcome = { response?: JsonRpcResponse; status: number; remaining?: number; cache?: CacheStatus };

/** Runs a parsed request body through the stages: resolve → check → charge → forward → record. */
export async function handleRpc(
  text: string,
  network: Network,
  key: ApiKeyRecord,
  deps: RpcDependencies,
): Promise<RpcOutcome> {
  let parsed: ParsedBody;
  try {
    parsed = parseBody(text);
  } catch (error) {
    const gatewayError = asGatewayError(error);
    return {
      status: gatewayError.httpStatus,
      body: errorResponse(null, { code: gatewayError.code(network.kind), message: gatewayError.message }),
    };
  }
  if (parsed.batch && parsed.items.length > deps.maxBatchSize) {
    const error = new GatewayError(
      'batchTooLarge',
      `batch too large: ${parsed.items.length} requests, at most ${deps.maxBatchSize} are allowed in one batch`,
    );
    return {
      status: error.httpStatus,
      body: errorResponse(null, { code: error.code(network.kind), message: error.message }),
    };
  }
  if (!parsed.batch) {
    const outcome = await handleItem(parsed.items[0], network, key, deps);
    return {
      status: outcome.response ? outcome.status : 204,
      body: outcome.response,
      remaining: outcome.remaining,
      cache: outcome.cache,
    };
  }
  const outcomes = await Promise.all(parsed.items.map((item) => handleItem(item, network, key, deps)));
  const responses = outcomes.flatMap((outcome) => (outcome.response ? [outcome.response] : []));
  const remaining = outcomes.reduce<number | undefined>(
    (least, outcome) =>
      outcome.remaining === undefined ? least : Math.min(least ?? Infinity, outcome.remaining),
    undefined,
  );
  return { status: responses.length ? 200 : 204, body: responses.length ? responses : undefined, remaining };
}

async function handleItem(
  item: ParsedItem,
  network: Network,
  key: ApiKeyRecord,
  deps: RpcDependencies,
): Promise<ItemOutcome> {
  if (!item.ok) {
    deps.usage.record(key.id, '(invalid request)', 0, item.error.code(network.kind));
    return {
      response: errorResponse(item.id, toErrorObject(item.error, network)),
      status: item.error.httpStatus,
    };
  }
  const { request, isNotification } = item;
  const id = request.id ?? null;
  let cost = 0;
  let remaining: number | undefined;
  // Usage is kept per method name: names the network does not serve share one row, so a client
  // cannot grow the usage table by inventing methods.
  let recordedMethod = '(unknown method)';
  try {
    const rule = resolveMethod(network, request.method);
    recordedMethod = request.method;
    if (!Array.isArray(request.params)) {
      throw new GatewayError(
        'invalidParams',
        `params of ${request.method} must be an array (positional parameters)`,
      );
    }
    const params = request.params;
    enforceItemSettings(key, request.method, params);

    if (rule.check) await rule.check(params, network.chain);
    await limitRate(deps.rateLimiter, key, request.method, rule.cost);
    remaining = await charge(deps.ledger, key, request.method, rule.cost);
    cost = rule.cost;
    const reply = await forward(network, rule, request.method, params);
    deps.usage.record(key.id, request.method, cost, reply.ok ? undefined : reply.error.code);
    if (isNotification) return { status: 200, remaining };
    return {
      response: reply.ok ? resultResponse(id, reply.result) : errorResponse(id, reply.error),
      status: 200,
      remaining,
      cache: reply.cache,
    };
  } catch (error) {
    const gatewayError = asGatewayError(error);
    if (cost > 0) {
      // Charged but not served (upstream unreachable): the caller gets the credits back.
      await deps.ledger.refund(key.id, cost);
      remaining = remaining === undefined ? undefined : remaining + cost;
    }
    if (gatewayError.kind === 'dailyCreditsExhausted') {
      remaining = (gatewayError.data as { remaining: number }).remaining;
    }
    if (gatewayError.kind === 'internal' || gatewayError.kind.startsWith('upstream')) {
      deps.onInternalError?.(error, { network: network.name, method: request.method, keyId: key.id });
    }
    deps.usage.record(key.id, recordedMethod, 0, gatewayError.code(network.kind));

    if (isNotification) return { status: 200, remaining };
    return {
      response: errorResponse(id, toErrorObject(gatewayError, network)),
      status: gatewayError.httpStatus,
      remaining,
    };
  }
}

function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError('internal', 'Internal error in the gateway');
}

function toErrorObject(error: GatewayError, network: Network) {
  const object: { code: number; message: string; data?: unknown } = {
    code: error.code(network.kind),
    message: error.message,
  };
  if (error.data !== undefined) object.data = error.data;
  return object;
}
