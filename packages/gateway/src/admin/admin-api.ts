import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  BodyTooLargeError,
  field,
  fields,
  InvalidJsonError,
  listOf,
  optional,
  parseBody,
  readJson as readJsonBody,
  recordOf,
  string,
} from '@portico/http';
import type { CreditLedger } from '../credits/ledger.ts';
import { sendError, sendJson } from '../http/respond.ts';
import { generateApiKey, hashApiKey } from '../keys/api-key.ts';
import { KeyInputError } from '../keys/key-input-error.ts';
import type { ApiKeyRecord, KeyStore } from '../keys/key-store.ts';
import { describeKey, keyView } from '../keys/key-view.ts';
import type { Network } from '../network.ts';
import { STORE_LABELS, StoreUnavailableError } from '../rpc/errors.ts';
import type { UsageRecorder } from '../usage/usage-recorder.ts';
import { AdminError } from './admin-error.ts';
import { routeUpstreams } from './upstreams-api.ts';

export type AdminDependencies = {
  adminToken: string;
  keys: KeyStore;
  ledger: CreditLedger;
  usage: UsageRecorder;
  networks: readonly Network[];
  /** Public base URL of the gateway, for the endpoints shown with a new key. */
  publicUrl: () => string;
};

/**
 * The admin HTTP API under /admin, guarded by `Authorization: Bearer <admin token>`:
 * GET/POST /admin/keys, GET/PATCH/DELETE /admin/keys/:id, POST /admin/keys/:id/rotate,
 * POST/DELETE /admin/keys/:id/secret,
 * GET /admin/projects, GET /admin/usage, GET /admin/networks,
 * GET /admin/upstreams, POST /admin/upstreams/:network/:upstream/cordon and /uncordon.
 *
 * Writes are all-or-nothing: everything the answer needs is read first (today's balance from the
 * ledger) and the one write to the key store comes last, in one statement. A store that cannot be
 * reached is a 503 naming it, and nothing was changed; a write never succeeds behind an error
 * (a key or secret nobody saw).
 */
export async function handleAdmin(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  deps: AdminDependencies,
) {
  try {
    authorise(request.headers.authorization, deps.adminToken);
    const result = await route(request, path, deps);
    sendJson(response, result.status, result.body);
  } catch (error) {
    if (error instanceof AdminError) {
      sendError(response, error.status, { code: error.code, message: error.message });
    } else if (error instanceof StoreUnavailableError) {
      const changed = request.method === 'GET' ? '' : '; nothing was changed';
      sendError(response, 503, {
        code: 'STORE_UNAVAILABLE',
        store: error.store,
        message: `${STORE_LABELS[error.store]} cannot be ${error.store === 'sqlite' ? 'used' : 'reached'}${changed}; retry shortly`,
      });
    } else if (error instanceof KeyInputError) {
      sendError(response, 400, { code: 'INVALID_INPUT', message: error.message });
    } else if (error instanceof BodyTooLargeError) {
      sendError(response, 413, { code: 'BODY_TOO_LARGE', message: 'request body too large' });
    } else {
      sendError(response, 500, { code: 'INTERNAL_ERROR', message: 'internal error' });
    }
  }
}

function authorise(header: string | undefined, token: string) {
  const presented = header?.startsWith('Bearer ') ? header.slice(7) : '';
  const a = Buffer.from(presented);
  const b = Buffer.from(token);
  if (a.length !== b.length || !timingSafeEqual(a, b)) {
    throw new AdminError(
      401,
      'ADMIN_TOKEN_REQUIRED',
      'admin token required: send Authorization: Bearer <admin token>',
    );
  }
}

async function route(
  request: IncomingMessage,
  path: string,
  deps: AdminDependencies,
): Promise<{ status: number; body: unknown }> {
  const url = new URL(path, 'http://admin');
  const parts = url.pathname.split('/').filter(Boolean); // ['admin', ...]
  const method = request.method ?? 'GET';
  if (parts[1] === 'keys' && parts.length === 2) {
    if (method === 'GET') {
      const project = url.searchParams.get('project');
      const keys = (await deps.keys.list()).filter((k) => !project || k.project === project);
      return { status: 200, body: { keys: await Promise.all(keys.map((k) => describeKey(k, deps.ledger))) } };
    }

    if (method === 'POST') {
      const input = await readJson(request);
      rejectUnknown(input, KEY_FIELDS);
      const { key, record } = await deps.keys.create(parseBody(BODIES.create, input, invalidInput));
      // A new id has spent nothing: the answer needs no other store, so the key is never created
      // behind an error (its text would be lost).
      return { status: 201, body: { key, ...keyView(record, 0), endpoints: endpoints(key, deps) } };
    }
  }
  if (parts[1] === 'keys' && parts.length === 3) {
    const id = parts[2];
    if (method === 'GET')
      return { status: 200, body: await describeKey(await existing(id, deps), deps.ledger) };
    if (method === 'PATCH') {
      const input = await readJson(request);
      rejectUnknown(input, [...KEY_FIELDS, 'settings']);
      const changes = parseBody(BODIES.change, input, invalidInput);
      const spent = await spentToday(id, deps);
      const updated = await deps.keys.update(id, changes);
      if (!updated) throw noKey(id);
      return { status: 200, body: keyView(updated, spent) };
    }
    if (method === 'DELETE') {
      const spent = await spentToday(id, deps);
      const revoked = await deps.keys.revoke(id);
      if (!revoked) throw noKey(id);
      return { status: 200, body: keyView(revoked, spent) };
    }
  }
  if (
    parts[1] === 'keys' &&
    parts.length === 4 &&
    parts[3] === 'secret' &&
    (method === 'POST' || method === 'DELETE')
  ) {
    // A key secret for HTTP Basic: generated here, shown once, stored as its SHA-256 only.
    const spent = await spentToday(parts[2], deps);
    const secret = method === 'POST' ? generateApiKey() : null;
    const updated = await deps.keys.update(parts[2], {
      secretHash: secret === null ? null : hashApiKey(secret),
    });
    if (!updated) throw noKey(parts[2]);
    return { status: 200, body: { ...(secret ? { secret } : {}), ...keyView(updated, spent) } };
  }
  if (parts[1] === 'keys' && parts.length === 4 && parts[3] === 'rotate' && method === 'POST') {
    const spent = await spentToday(parts[2], deps);
    const rotated = await deps.keys.rotate(parts[2]);
    if (!rotated) throw new AdminError(404, 'KEY_NOT_FOUND', `no live key with id ${parts[2]}`);
    return {
      status: 200,
      body: { key: rotated.key, ...keyView(rotated.record, spent), endpoints: endpoints(rotated.key, deps) },
    };
  }
  if (parts[1] === 'projects' && parts.length === 2 && method === 'GET') {
    const counts = new Map<string, number>();
    for (const key of await deps.keys.list()) counts.set(key.project, (counts.get(key.project) ?? 0) + 1);
    return { status: 200, body: { projects: [...counts].map(([name, keys]) => ({ name, keys })) } };
  }
  if (parts[1] === 'usage' && parts.length === 2 && method === 'GET') {
    const keyId = url.searchParams.get('keyId') ?? undefined;
    const fromDay = url.searchParams.get('from') ?? undefined;
    if (fromDay && !/^\d{4}-\d{2}-\d{2}$/.test(fromDay))
      throw new AdminError(400, 'INVALID_INPUT', 'from must be YYYY-MM-DD');
    return {
      status: 200,
      body: {
        usage: await deps.usage.usage({ keyId, fromDay }),
        errors: await deps.usage.errors({ keyId, fromDay }),
      },
    };
  }
  if (parts[1] === 'upstreams') return routeUpstreams(method, parts, deps.networks);
  if (parts[1] === 'networks' && parts.length === 2 && method === 'GET') {
    return { status: 200, body: { networks: deps.networks.map((n) => describeNetwork(n, deps)) } };
  }
  throw new AdminError(404, 'NOT_FOUND', `no admin route ${method} ${url.pathname}`);
}

const KEY_FIELDS = ['name', 'project', 'dailyCredits', 'creditsPerSecond'];

const number = field<number>('a number', (value) => typeof value === 'number');
const numberOrNull = field<number | null>(
  'a number or null',
  (value) => value === null || typeof value === 'number',
);

/**
 * The keys API's bodies, by type; the key store holds the rules of each value (a name's length, a
 * project's letters, an allowlist's entries), as it does for every caller.
 */
const BODIES = {
  create: fields({
    name: string,
    project: optional(string),
    dailyCredits: optional(number),
    creditsPerSecond: optional(numberOrNull),
  }),
  change: fields({
    name: optional(string),
    project: optional(string),
    dailyCredits: optional(number),
    creditsPerSecond: optional(numberOrNull),
    settings: optional(recordOf(listOf(string))),
  }),
};

const invalidInput = (_field: string, message: string) => new AdminError(400, 'INVALID_INPUT', message);

const noKey = (id: string) => new AdminError(404, 'KEY_NOT_FOUND', `no key with id ${id}`);

async function existing(id: string, deps: AdminDependencies): Promise<ApiKeyRecord> {
  const record = await deps.keys.get(id);
  if (!record) throw noKey(id);
  return record;
}

/**
 * Today's credits spent by an existing key, read before a change so that the change is the last
 * step: a balance store that cannot be reached fails the request before anything is written.
 */
async function spentToday(id: string, deps: AdminDependencies): Promise<number> {
  return deps.ledger.spent((await existing(id, deps)).id);
}

function rejectUnknown(input: Record<string, unknown>, allowed: string[]) {
  const unknown = Object.keys(input).filter((k) => !allowed.includes(k));
  if (unknown.length) {
    throw new AdminError(
      400,
      'INVALID_INPUT',
      `unknown field(s): ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`,
    );
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let value: unknown;
  try {
    value = await readJsonBody(request, 64 * 1024);
  } catch (error) {
    if (error instanceof InvalidJsonError) throw new AdminError(400, 'INVALID_JSON', error.message);
    throw error;
  }
  // An empty body is an empty object (e.g. POST /admin/keys/:id/rotate).
  if (value === undefined) value = {};
  if (!isRecord(value)) throw new AdminError(400, 'INVALID_JSON', 'request body must be a JSON object');
  return value;
}

function describeNetwork(network: Network, deps: AdminDependencies) {
  return {
    name: network.name,
    kind: network.kind,
    chainId: network.chainId,
    baseUrl: baseUrl(network, deps),
  };
}

function baseUrl(network: Network, deps: AdminDependencies) {
  return network.host && !network.basePath
    ? `http://${network.host}`
    : `${deps.publicUrl()}${network.basePath}`;
}

function endpoints(key: string, deps: AdminDependencies) {
  return deps.networks.map((network) => ({
    network: network.name,
    chainId: network.chainId,
    url: `${baseUrl(network, deps)}/v3/${key}`,
  }));
}
