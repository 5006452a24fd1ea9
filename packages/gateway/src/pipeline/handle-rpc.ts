import type { CreditLedger } from '../credits/ledger.ts';
import type { RateLimiter } from '../credits/rate-limiter.ts';
import type { ApiKeyRecord } from '../keys/key-store.ts';
import type { Network } from '../network.ts';
import type { RpcItemEvent } from '../observability/metrics.ts';
import { GatewayError } from '../rpc/errors.ts';
import { mayHoldBigIntegers, readRequestId } from '../rpc/exact-json.ts';
import {
  errorResponse,
  type JsonRpcError,
  type JsonRpcResponse,
  type ParsedBody,
  type ParsedItem,
  parseBody,
  resultResponse,
} from '../rpc/jsonrpc.ts';
import type { CacheStatus } from '../types.ts';
import type { UsageRecorder } from '../usage/usage-recorder.ts';
import { charge, limitRate } from './charge.ts';
import { enforceItemSettings } from './enforce-settings.ts';
import { type ForwardResult, forward } from './forward.ts';
import { refuseInexactNumbers, refuseRoundedNumbers } from './inexact-numbers.ts';
import { resolveMethod } from './resolve-method.ts';

export type RpcDependencies = {
  ledger: CreditLedger;
  rateLimiter: RateLimiter;
  usage: UsageRecorder;
  /** Largest number of items in one batch (counted before the body is parsed). */
  maxBatchSize: number;
  /** Deepest nesting of arrays and objects in a body (checked before the body is parsed). */
  maxJsonDepth: number;
  /** Told of failures the gateway itself could not help (upstream down, bugs); never of keys. */
  onInternalError?: (error: unknown, context: { network: string; method: string; keyId: string }) => void;
  /** Told of every answered item (metrics); never of keys, only key ids. */
  observe?: (event: RpcItemEvent) => void;
};

/**
 * Methods a connection serves itself (a WebSocket's eth_subscribe / eth_unsubscribe): they go
 * through the same stages (rate limit, charge, record, refund on failure) as every other method,
 * only the forward stage is theirs.
 */
export type SessionMethods = Readonly<
  Record<
    string,
    { cost: number; check?: (params: unknown[]) => void; call: (params: unknown[]) => Promise<ForwardResult> }
  >
>;

export type RpcOutcome = {
  /** HTTP status of the whole answer. */
  status: number;
  /** undefined when every item was a notification (answered with 204). */
  body: JsonRpcResponse | JsonRpcResponse[] | undefined;
  /** Credits left on the key after this request, when anything was charged or looked up. */
  remaining?: number;
  /** For a single request: whether the cache answered it. */
  cache?: CacheStatus;
  /** For logs: the method of a single request (at most 64 characters), or `batch`. */
  method: string;
  batchSize?: number;
};

type ItemOutcome = {
  response?: JsonRpcResponse;
  status: number;
  remaining?: number;
  cache?: CacheStatus;
  /** Charged, then given back (refused by the node, upstream failure). */
  refunded?: boolean;
};

/** Runs a parsed request body through the stages: resolve → check → charge → forward → record. */
export async function handleRpc(
  text: string,
  network: Network,
  key: ApiKeyRecord,
  deps: RpcDependencies,
  session?: SessionMethods,
): Promise<RpcOutcome> {
  let parsed: ParsedBody;
  try {
    parsed = parseBody(text, deps);
  } catch (error) {
    const gatewayError = asGatewayError(error);
    const tooLarge = gatewayError.kind === 'batchTooLarge';
    observeRefusal(deps, network, key, tooLarge ? '(batch too large)' : '(unparsed)', gatewayError);
    // A body refused for its depth is JSON as far as its id goes: the refusal carries that id.
    const id = gatewayError.kind === 'nestingTooDeep' ? (readRequestId(text) ?? null) : null;
    return {
      method: tooLarge ? 'batch' : '(unparsed)',
      status: gatewayError.httpStatus,
      body: errorResponse(id, { code: gatewayError.rpcCode(network.kind), message: gatewayError.message }),
    };
  }
  if (!parsed.batch) {
    const outcome = await handleItem(parsed.items[0], network, key, deps, session);
    const item = parsed.items[0];
    return {
      method: item.ok ? item.request.method.slice(0, 64) : '(invalid request)',
      status: outcome.response ? outcome.status : 204,
      body: outcome.response,
      remaining: outcome.remaining,
      cache: outcome.cache,
    };
  }
  const outcomes = await Promise.all(
    parsed.items.map((item) => handleItem(item, network, key, deps, session)),
  );
  const responses = outcomes.flatMap((outcome) => (outcome.response ? [outcome.response] : []));
  let remaining = outcomes.reduce<number | undefined>(
    (least, outcome) =>
      outcome.remaining === undefined ? least : Math.min(least ?? Infinity, outcome.remaining),
    undefined,
  );
  // An item's own figure does not see the refunds of items that ran beside it: ask the ledger.
  if (outcomes.some((outcome) => outcome.refunded)) {
    try {
      remaining = Math.max(0, key.dailyCredits - (await deps.ledger.spent(key.id)));
    } catch {
      remaining = undefined; // the store is away: no figure rather than a wrong one
    }
  }
  return {
    method: 'batch',
    batchSize: parsed.items.length,
    status: responses.length ? 200 : 204,
    body: responses.length ? responses : undefined,
    remaining,
  };
}

async function handleItem(
  item: ParsedItem,
  network: Network,
  key: ApiKeyRecord,
  deps: RpcDependencies,
  session: SessionMethods | undefined,
): Promise<ItemOutcome> {
  if (!item.ok) {
    deps.usage.record(key.id, '(invalid request)', 0, item.error.rpcCode(network.kind));
    observeRefusal(deps, network, key, '(invalid request)', item.error);
    return {
      response: errorResponse(item.id, toErrorObject(item.error, network)),
      status: item.error.httpStatus,
    };
  }
  const { request, isNotification } = item;
  const id = request.id ?? null;
  let cost = 0;
  let remaining: number | undefined;
  const started = deps.observe ? performance.now() : 0;
  // Usage is kept per method name: names the network does not serve share one row, so a client
  // cannot grow the usage table by inventing methods.
  let recordedMethod = '(unknown method)';
  try {
    const own = session && Object.hasOwn(session, request.method) ? session[request.method] : undefined;
    const rule = own ? { cost: own.cost, check: own.check } : resolveMethod(network, request.method);
    recordedMethod = request.method;
    if (!Array.isArray(request.params)) {
      throw new GatewayError(
        'invalidParams',
        `params of ${request.method} must be an array (positional parameters)`,
      );
    }
    const params = request.params;
    enforceItemSettings(key, request.method, params, 'contracts' in rule ? rule.contracts : undefined);

    const bigNumbers = mayHoldBigIntegers(params);
    if (bigNumbers) refuseRoundedNumbers(params);
    // Most checks and rate limits finish at once: awaited only when they return a Promise.
    const checked = rule.check?.(params, network.chain);
    if (checked) await checked;
    if (bigNumbers) refuseInexactNumbers(params, 'prepare' in rule ? rule.prepare : undefined);
    const priced = rule.price ? rule.price(params, network.chain, rule.cost) : rule.cost;
    const price = typeof priced === 'number' ? priced : await priced;
    const limited = limitRate(deps.rateLimiter, key, request.method, price);
    if (limited) await limited;
    const charged = charge(deps.ledger, key, request.method, price);
    remaining = typeof charged === 'number' ? charged : await charged;
    cost = price;
    const reply = own ? await own.call(params) : await forward(network, rule, request.method, params);
    if (!reply.ok && PARAMETER_REFUSALS.has(reply.error.code)) throw refusedByNode(reply.error);
    deps.usage.record(key.id, request.method, cost, reply.ok ? undefined : reply.error.code);
    if (deps.observe) {
      observeItem(
        deps.observe,
        network,
        request.method,
        key,
        cost,
        started,
        reply.ok ? undefined : reply.error.code,
        reply.cache,
      );
    }
    if (isNotification) return { status: 200, remaining };
    return {
      response: reply.ok ? resultResponse(id, reply.result) : errorResponse(id, reply.error),
      status: 200,
      remaining,
      cache: reply.cache,
    };
  } catch (error) {
    const gatewayError = asGatewayError(error);
    const refunded = cost > 0;
    if (cost > 0) {
      // Charged but not served (upstream unreachable): the caller gets the credits back.
      await deps.ledger.refund(key.id, cost);
      remaining = remaining === undefined ? undefined : remaining + cost;
      cost = 0;
    }
    if (gatewayError.kind === 'dailyCreditsExhausted') {
      remaining = (gatewayError.data as { remaining: number }).remaining;
    }
    if (gatewayError.kind === 'internal' || gatewayError.kind.startsWith('upstream')) {
      deps.onInternalError?.(error, { network: network.name, method: request.method, keyId: key.id });
    }
    deps.usage.record(key.id, recordedMethod, 0, gatewayError.rpcCode(network.kind));
    if (deps.observe) {
      observeItem(
        deps.observe,
        network,
        request.method,
        key,
        cost,
        started,
        gatewayError.rpcCode(network.kind),
      );
    }
    if (isNotification) return { status: 200, remaining, refunded };
    return {
      response: errorResponse(id, toErrorObject(gatewayError, network)),
      status: gatewayError.httpStatus,
      remaining,
      refunded,
    };
  }
}

/** Codes with which a node refuses a request for its parameters or its shape, not for its outcome. */
const PARAMETER_REFUSALS = new Set([-32602, -32600]);

/**
 * The node refused parameters the gateway's rules let through (or a pass-through method's, which
 * have none): the caller gets the node's error and, like for an upstream failure, the credits back
 * and a usage record of 0 credits with the code. The rules and the node can never disagree at the
 * caller's expense.
 */
function refusedByNode(error: JsonRpcError): GatewayError {
  return new GatewayError(
    error.code === -32600 ? 'invalidRequest' : 'invalidParams',
    error.message,
    error.data,
  );
}

/** Tells the metrics of one answered item. */
function observeItem(
  observe: NonNullable<RpcDependencies['observe']>,
  network: Network,
  method: string,
  key: ApiKeyRecord,
  cost: number,
  started: number,
  errorCode: number | undefined,
  cache?: CacheStatus,
) {
  observe({
    network,
    method,
    keyId: key.id,
    cost,
    errorCode,
    cache,
    seconds: (performance.now() - started) / 1000,
  });
}

function observeRefusal(
  deps: RpcDependencies,
  network: Network,
  key: ApiKeyRecord,
  method: string,
  error: GatewayError,
) {
  deps.observe?.({
    network,
    method,
    keyId: key.id,
    cost: 0,
    errorCode: error.rpcCode(network.kind),
    seconds: 0,
  });
}

function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError('internal', 'Internal error in the gateway');
}

function toErrorObject(error: GatewayError, network: Network) {
  const object: { code: number; message: string; data?: unknown } = {
    code: error.rpcCode(network.kind),
    message: error.message,
  };
  if (error.data !== undefined) object.data = error.data;
  return object;
}
