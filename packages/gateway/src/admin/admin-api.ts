import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CreditLedger } from '../credits/ledger.ts';
import type { UsageRecorder } from '../credits/usage-recorder.ts';
import { BodyTooLargeError, readBody } from '../http/read-body.ts';
import { sendJson } from '../http/respond.ts';
import type { KeyChanges, KeyStore } from '../keys/key-store.ts';
import { describeKey } from '../keys/key-view.ts';
import type { Network } from '../network.ts';

export type AdminDependencies = {
  adminToken: string;
  keys: KeyStore;
  ledger: CreditLedger;
  usage: UsageRecorder;
  networks: readonly Network[];
  /** Public base URL of the gateway, for the endpoints shown with a new key. */
  publicUrl: () => string;
};

class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The admin HTTP API under /admin, guarded by `Authorization: Bearer <admin token>`:
 * GET/POST /admin/keys, GET/PATCH/DELETE /admin/keys/:id, POST /admin/keys/:id/rotate,
 * GET /admin/projects, GET /admin/usage, GET /admin/networks.
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
      sendJson(response, error.status, { error: { code: error.code, message: error.message } });
    } else if (error instanceof RangeError) {
      sendJson(response, 400, { error: { code: 'invalid_input', message: error.message } });
    } else if (error instanceof BodyTooLargeError) {
      sendJson(response, 413, { error: { code: 'body_too_large', message: 'request body too large' } });
    } else {
      sendJson(response, 500, { error: { code: 'internal', message: 'internal error' } });
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
      'unauthorized',
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
    if (method === 'GET')
      return {
        status: 200,
        body: { keys: await Promise.all((await deps.keys.list()).map((k) => describeKey(k, deps.ledger))) },
      };
    if (method === 'POST') {
      const input = await readJson(request);
      rejectUnknown(input, KEY_FIELDS);
      const { key, record } = await deps.keys.create({
        name: input.name as string,
        project: input.project as string | undefined,
        dailyCredits: input.dailyCredits as number | undefined,
        creditsPerSecond: input.creditsPerSecond as number | null | undefined,
      });
      return {
        status: 201,
        body: { key, ...(await describeKey(record, deps.ledger)), endpoints: endpoints(key, deps) },
      };
    }
  }
  if (parts[1] === 'keys' && parts.length === 3) {
    const id = parts[2];
    const existing = await deps.keys.get(id);
    if (!existing) throw new AdminError(404, 'not_found', `no key with id ${id}`);
    if (method === 'GET') return { status: 200, body: await describeKey(existing, deps.ledger) };
    if (method === 'PATCH') {
      const input = await readJson(request);
      const unknown = Object.keys(input).filter(
        (k) => k !== 'name' && k !== 'dailyCredits' && k !== 'creditsPerSecond',
      );
      if (unknown.length)
        throw new AdminError(400, 'invalid_input', `unknown field(s): ${unknown.join(', ')}`);
      const updated = await deps.keys.update(id, input as Omit<KeyChanges, 'project'>);
      return { status: 200, body: await describeKey(updated!, deps.ledger) };
    }
    if (method === 'DELETE')
      return { status: 200, body: await describeKey((await deps.keys.revoke(id))!, deps.ledger) };
  }
  if (parts[1] === 'keys' && parts.length === 4 && parts[3] === 'rotate' && method === 'POST') {
    const rotated = await deps.keys.rotate(parts[2]);
    if (!rotated) throw new AdminError(404, 'not_found', `no live key with id ${parts[2]}`);
    return {
      status: 200,
      body: {
        key: rotated.key,
        ...(await describeKey(rotated.record, deps.ledger)),
        endpoints: endpoints(rotated.key, deps),
      },
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
      throw new AdminError(400, 'invalid_input', 'from must be YYYY-MM-DD');
    return {
      status: 200,
      body: {
        usage: await deps.usage.usage({ keyId, fromDay }),
        errors: await deps.usage.errors({ keyId, fromDay }),
      },
    };
  }
  if (parts[1] === 'networks' && parts.length === 2 && method === 'GET') {
    return { status: 200, body: { networks: deps.networks.map((n) => describeNetwork(n, deps)) } };
  }
  throw new AdminError(404, 'not_found', `no admin route ${method} ${url.pathname}`);
}

const KEY_FIELDS = ['name', 'project', 'dailyCredits', 'creditsPerSecond'];

function rejectUnknown(input: Record<string, unknown>, allowed: string[]) {
  const unknown = Object.keys(input).filter((k) => !allowed.includes(k));
  if (unknown.length) {
    throw new AdminError(
      400,
      'invalid_input',
      `unknown field(s): ${unknown.join(', ')} (allowed: ${allowed.join(', ')})`,
    );
  }
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readBody(request, 64 * 1024);
  let value: unknown;
  try {
    value = JSON.parse(text || '{}');
  } catch {
    throw new AdminError(400, 'invalid_json', 'request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AdminError(400, 'invalid_json', 'request body must be a JSON object');
  }
  return value as Record<string, unknown>;
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
