// The operator's API, on only when `adminToken` is set: the audit trail (filtered), the chain's
// check, current lockouts and unlocking a user or an address. Bearer token, compared in
// constant time.
import { timingSafeEqual } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { addressSubject, userSubject } from './attempts.ts';
import { AUDIT_EVENTS, type AuditLog } from './audit.ts';
import { fields, InvalidBodyError, nonEmptyString, optional, parseBody, string } from './body.ts';
import { HttpError } from './http.ts';
import { type SessionChains, sessionInfo } from './sessions.ts';
import type { AuthStore } from './store.ts';

export const ADMIN_PREFIX = '/admin/';
const MAX_ROWS = 1000;

const UNLOCK_BODY = fields({ user: optional(string), address: optional(string) });
const REVOKE_BODY = fields({ user: nonEmptyString });

export interface AdminDeps {
  adminToken?: string;
  store: AuthStore;
  audit: AuditLog;
  now: () => number;
  chains: SessionChains;
}

export function checkAdminToken(token: string | undefined): void {
  if (token !== undefined && token.length < 32) {
    throw new Error('auth: adminToken must be at least 32 characters');
  }
}

function authorize(deps: AdminDeps, header: string | undefined): void {
  if (!deps.adminToken) throw new HttpError(404, 'ADMIN_API_OFF', 'The admin API is off: set adminToken');
  const given = /^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '';
  if (!timingSafeEqual(sha256(utf8ToBytes(given)), sha256(utf8ToBytes(deps.adminToken)))) {
    throw new HttpError(
      401,
      'ADMIN_TOKEN_REQUIRED',
      'Admin token required (Authorization: Bearer <adminToken>)',
    );
  }
}

function timeParam(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms))
    throw new HttpError(400, 'INVALID_QUERY', `${name} must be an ISO time or milliseconds since 1970`);
  return ms;
}

/**
 * `GET /admin/audit`, `GET /admin/audit/verify`, `GET /admin/lockouts`, `POST /admin/unlock`,
 * `GET /admin/sessions?user=`, `POST /admin/sessions/revoke {user}`.
 */
export async function adminApi(
  deps: AdminDeps,
  method: string,
  url: URL,
  authorization: string | undefined,
  readBody: () => Promise<Record<string, unknown>>,
): Promise<[number, unknown]> {
  authorize(deps, authorization);
  const route = `${method} ${url.pathname}`;
  if (route === 'GET /admin/audit') {
    const event = url.searchParams.get('event') ?? undefined;
    if (event !== undefined && !(AUDIT_EVENTS as readonly string[]).includes(event)) {
      throw new HttpError(400, 'INVALID_QUERY', `event must be one of ${AUDIT_EVENTS.join(', ')}`);
    }
    const after = url.searchParams.get('after');
    const limit = Number(url.searchParams.get('limit') ?? 100);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_ROWS) {
      throw new HttpError(400, 'INVALID_QUERY', `limit must be 1 to ${MAX_ROWS}`);
    }
    const rows = await deps.audit.read({
      userId: url.searchParams.get('user') ?? undefined,
      event,
      since: timeParam(url, 'since'),
      until: timeParam(url, 'until'),
      afterSeq: after !== null && /^\d+$/.test(after) ? Number(after) : undefined,
      limit,
    });
    return [
      200,
      {
        entries: rows.map((r) => ({
          seq: r.seq,
          at: new Date(r.at).toISOString(),
          event: r.event,
          user: r.userId,
          detail: JSON.parse(r.detail) as unknown,
          hash: r.hash,
        })),
      },
    ];
  }
  if (route === 'GET /admin/audit/verify') return [200, await deps.audit.verify()];
  if (route === 'GET /admin/lockouts') {
    const rows = await deps.store.lockedSubjects(deps.now());
    return [
      200,
      {
        lockouts: rows.map((r) => ({
          subject: r.subject,
          failures: r.failures,
          until: new Date(r.notBefore).toISOString(),
        })),
      },
    ];
  }
  if (route === 'POST /admin/unlock') {
    const body = parseBody(UNLOCK_BODY, await readBody());
    const subjects: string[] = [];
    if (body.user) subjects.push(userSubject(body.user));
    if (body.address) subjects.push(addressSubject(body.address));
    if (subjects.length === 0)
      throw new InvalidBodyError('user', 'Give user (a user id from the audit log) or address');
    let unlocked = 0;
    for (const subject of subjects) {
      if (await deps.store.clearAttempts(subject)) {
        unlocked++;
        await deps.audit.record('attempts.unlocked', body.user, {
          subject: subject.split(':')[0],
          address: body.address,
          by: 'operator',
        });
      }
    }
    return [200, { unlocked }];
  }
  if (route === 'GET /admin/sessions') {
    const user = url.searchParams.get('user');
    if (!user) throw new HttpError(400, 'INVALID_QUERY', 'Give user (a user id from the audit log)');
    return [200, { sessions: (await deps.chains.listOfUser(user, deps.now())).map(sessionInfo) }];
  }
  if (route === 'POST /admin/sessions/revoke') {
    const body = parseBody(REVOKE_BODY, await readBody());
    const now = deps.now();
    let ended = 0;
    for (const chain of await deps.chains.listOfUser(body.user, now)) {
      if (await deps.chains.end(chain, now)) {
        ended++;
        await deps.audit.record('session.revoked', body.user, {
          outcome: 'success',
          clientId: chain.clientId,
          by: 'operator',
        });
      }
    }
    return [200, { ended }];
  }
  throw new HttpError(404, 'NOT_FOUND', 'Not found');
}
