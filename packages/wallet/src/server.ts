import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import {
  BodyTooLargeError,
  boolean,
  fields,
  listOf,
  nonEmptyString,
  optional,
  parseBody,
  readBody,
  recordOf,
  string,
} from '@portico/http';
import type { ApprovalDecision, MultichainEngine } from '@portico/multichain';
import type { ApprovalQueue } from './approvals.ts';
import { WalletError } from './base-error.ts';
import type { WalletLoginParams, WalletLoginStart, WalletUser } from './login.ts';

/** What `GET /api/account` answers: who the accounts belong to and what the page may offer. */
export type AccountView = {
  /** `dev`: the mnemonic's accounts; `login`: the logged-in user's; `none`: no accounts (locked). */
  source: 'dev' | 'login' | 'none';
  user: WalletUser | null;
  /** Whether an auth service is configured (the page offers "Log in"), and the login in progress. */
  login: { available: boolean; pending: boolean; error: string | null };
  /** Whether the wallet was given a `fund` hook (the page shows "Top up"). */
  canFund: boolean;
  /** Whether "Use dev accounts" is offered (off in production). */
  devAccounts: boolean;
  accounts: { eip155: string[]; solana: string[] };
};

export type BalanceView = { chainId: string; address: string; balance: string | null; error?: string };

/** The wallet's side of the approval page's account controls. */
export type AccountControls = {
  view: () => AccountView;
  balances: () => Promise<BalanceView[]>;
  login: (params: WalletLoginParams) => Promise<WalletLoginStart>;
  cancelLogin: () => boolean;
  arriveLogin: (nonce: string, href: string) => boolean;
  logout: () => Promise<void>;
  useDevAccounts: () => Promise<void>;
  fund: (namespace: string, address: string) => Promise<void>;
};

/** A refusal the approval API answers with its status, a stable UPPER_SNAKE code and its message. */
export class HttpError extends WalletError {
  override readonly name: string = 'HttpError';
  declare readonly status: number;
  constructor(
    status: number,
    readonly code: Uppercase<string>,
    message: string,
  ) {
    super('request_refused', message, { status });
  }
}

const PAGE_DIR = resolve(new URL('.', import.meta.url).pathname, 'page');
const PAGE_FILES = new Map<string, { file: string; type: string }>([
  ['/approve', { file: 'wallet.html', type: 'text/html; charset=utf-8' }],
  ['/static/wallet.js', { file: 'wallet.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/account.js', { file: 'account.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/requests.js', { file: 'requests.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/page.js', { file: 'page.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/format.js', { file: 'format.js', type: 'text/javascript; charset=utf-8' }],
  ['/static/wallet.css', { file: 'wallet.css', type: 'text/css; charset=utf-8' }],
  ['/static/callback.js', { file: 'callback.js', type: 'text/javascript; charset=utf-8' }],
  ['/login/callback', { file: 'callback.html', type: 'text/html; charset=utf-8' }],
]);
const PAGES = new Map(
  [...PAGE_FILES].map(([path, { file }]) => [path, readFileSync(resolve(PAGE_DIR, file))]),
);

const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
};

const CALLBACK_PATH = /^\/login\/callback\/([0-9a-f]{32})$/;

async function readLimitedBody(req: IncomingMessage, limit: number): Promise<string> {
  try {
    return await readBody(req, limit);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new HttpError(413, 'BODY_TOO_LARGE', 'body too large');
    throw error;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readLimitedBody(req, 64 * 1024);
  try {
    return JSON.parse(text || '{}');
  } catch {
    throw new HttpError(400, 'INVALID_BODY', 'the body is not JSON');
  }
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** `{ "error": { "code", "message" } }`, the envelope of docs/http-errors.md. */
function sendError(res: ServerResponse, status: number, code: Uppercase<string>, message: string) {
  send(res, status, { error: { code, message } });
}

/** The approval API's bodies: 400 `INVALID_BODY` names the first field at fault. */
const BODIES = {
  /**
   * An answer to a pending request (a signature reads only `approved`). Account lists are keyed by
   * namespace; the engine grants only scopes and accounts it offered, so names such as `__proto__`
   * are data it finds nothing under.
   */
  decision: fields({
    approved: boolean,
    scopes: optional(listOf(string)),
    accounts: optional(recordOf(listOf(string))),
  }),
  revoke: fields({ origin: string }),
  /** A login: a provider, and an id_token for a JWT login (empty means not given). */
  login: fields({ loginProvider: optional(string), idToken: optional(string) }),
  fund: fields({ namespace: nonEmptyString, address: nonEmptyString }),
};

/** What `parseBody` throws for a body that fails its schema (the message names the field). */
const invalidBody = (_field: string, message: string) => new HttpError(400, 'INVALID_BODY', message);

function approvalDecision(body: unknown): ApprovalDecision {
  const { approved, scopes, accounts } = parseBody(BODIES.decision, body, invalidBody);
  return approved ? { approved, scopes, accounts: accounts ?? {} } : { approved };
}

function loginParams(body: unknown): WalletLoginParams {
  const { loginProvider, idToken } = parseBody(BODIES.login, body, invalidBody);
  const params: WalletLoginParams = {};
  if (loginProvider) params.loginProvider = loginProvider;
  if (idToken) params.extraLoginOptions = { id_token: idToken };
  return params;
}

/**
 * The wallet's HTTP side: the approval page and its files, the login callback, and the approval
 * API (`/api/*`, bearer token from the approval URL's fragment, so a web page cannot answer its
 * own requests).
 */
export function createWalletServer(deps: {
  token: string;
  approvals: ApprovalQueue;
  engine: MultichainEngine;
  account: AccountControls;
}): Server {
  const { approvals, engine, account } = deps;
  const tokenBuffer = Buffer.from(`Bearer ${deps.token}`);
  const authorised = (req: IncomingMessage) => {
    const header = Buffer.from(req.headers.authorization ?? '');
    return header.length === tokenBuffer.length && timingSafeEqual(header, tokenBuffer);
  };

  async function api(req: IncomingMessage, res: ServerResponse, path: string) {
    if (req.method === 'GET') {
      if (path === '/api/approvals') return send(res, 200, approvals.list());
      if (path === '/api/approvals/expired') return send(res, 200, approvals.expired());
      if (path === '/api/approvals/history') return send(res, 200, approvals.history());
      if (path === '/api/sessions') return send(res, 200, await engine.listSessions());
      if (path === '/api/account') return send(res, 200, account.view());
      if (path === '/api/balances') return send(res, 200, await account.balances());
      return sendError(res, 404, 'NOT_FOUND', 'not found');
    }
    if (req.method !== 'POST') return sendError(res, 405, 'METHOD_NOT_ALLOWED', 'method not allowed');
    const body = await readJson(req);
    const decide = /^\/api\/approvals\/([^/]+)$/.exec(path);
    if (decide) {
      const found = approvals.decide(decodeURIComponent(decide[1]), approvalDecision(body));
      if (!found) return sendError(res, 404, 'APPROVAL_NOT_FOUND', 'no such pending request');
      return send(res, 200, { ok: true });
    }
    switch (path) {
      case '/api/sessions/revoke': {
        const { origin } = parseBody(BODIES.revoke, body, invalidBody);
        await engine.revokeSession(origin);
        return send(res, 200, { ok: true });
      }
      case '/api/login':
        return send(res, 200, await account.login(loginParams(body)));
      case '/api/login/cancel':
        return send(res, 200, { cancelled: account.cancelLogin() });
      case '/api/logout':
        await account.logout();
        return send(res, 200, account.view());
      case '/api/accounts/dev':
        await account.useDevAccounts();
        return send(res, 200, account.view());
      case '/api/fund': {
        const { namespace, address } = parseBody(BODIES.fund, body, invalidBody);
        await account.fund(namespace, address);
        return send(res, 200, { ok: true });
      }
      default:
        return sendError(res, 404, 'NOT_FOUND', 'not found');
    }
  }

  return createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    try {
      const callback = CALLBACK_PATH.exec(url.pathname);
      if (callback && req.method === 'POST') {
        // The callback page hands back the URL it was opened at (the result is in its fragment,
        // which browsers never send). Only the attempt that owns this unguessable path takes it.
        const href = await readLimitedBody(req, 16 * 1024);
        const arrived = URL.canParse(href) ? new URL(href) : undefined;
        const ok = arrived?.pathname === url.pathname && account.arriveLogin(callback[1], href);
        res.writeHead(ok ? 204 : 404, { 'cache-control': 'no-store' }).end();
        return;
      }
      const pagePath = url.pathname === '/' ? '/approve' : callback ? '/login/callback' : url.pathname;
      const page = req.method === 'GET' ? PAGE_FILES.get(pagePath) : undefined;
      if (page) {
        res.writeHead(200, { 'content-type': page.type, ...PAGE_HEADERS });
        res.end(PAGES.get(pagePath));
        return;
      }
      if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, { ok: true });
      if (!url.pathname.startsWith('/api/')) return sendError(res, 404, 'NOT_FOUND', 'not found');
      if (!authorised(req)) {
        return sendError(res, 401, 'APPROVAL_TOKEN_REQUIRED', 'the approval token is missing or wrong');
      }
      await api(req, res, url.pathname);
    } catch (error) {
      if (res.headersSent) return;
      if (error instanceof HttpError) return sendError(res, error.status, error.code, error.message);
      // What the wallet's own steps refuse (a login the auth service turns down) is the page's to
      // show: 400 with the reason.
      sendError(res, 400, 'REQUEST_FAILED', error instanceof Error ? error.message : String(error));
    }
  });
}
