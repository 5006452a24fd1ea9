import { timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { isPlainObject } from '@metamask/utils';
import { BodyTooLargeError, readBody } from '@portico/http';
import type { ApprovalDecision, MultichainEngine } from '@portico/multichain';
import type { ApprovalQueue } from './approvals.ts';
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

/** A refusal the approval API answers with its status and message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
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
    if (error instanceof BodyTooLargeError) throw new HttpError(413, 'body too large');
    throw error;
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = await readLimitedBody(req, 64 * 1024);
  let body: unknown;
  try {
    body = JSON.parse(text || '{}');
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
  return isPlainObject(body) ? body : {};
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** A string member of a body read from the network (own property only), else undefined. */
const stringMember = (body: Record<string, unknown>, key: string) =>
  Object.hasOwn(body, key) && typeof body[key] === 'string' ? (body[key] as string) : undefined;

/**
 * The approval API's answer as a decision. The body comes over HTTP: only the expected members are
 * read (own properties), lists keep only strings; the engine grants only scopes it offered.
 */
function approvalDecision(body: Record<string, unknown>): ApprovalDecision {
  if (!Object.hasOwn(body, 'approved') || body.approved !== true) return { approved: false };
  const strings = (value: unknown) =>
    Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  const scopes =
    Object.hasOwn(body, 'scopes') && Array.isArray(body.scopes) ? strings(body.scopes) : undefined;
  const accounts = new Map<string, string[]>();
  if (Object.hasOwn(body, 'accounts') && isPlainObject(body.accounts)) {
    for (const [namespace, list] of Object.entries(body.accounts)) accounts.set(namespace, strings(list));
  }
  return { approved: true, scopes, accounts: Object.fromEntries(accounts) };
}

/** The login a `POST /api/login` body asks for: a provider, and an id_token for a JWT login. */
function loginParams(body: Record<string, unknown>): WalletLoginParams {
  const params: WalletLoginParams = {};
  const loginProvider = stringMember(body, 'loginProvider');
  if (loginProvider) params.loginProvider = loginProvider;
  const idToken = stringMember(body, 'idToken');
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
      return send(res, 404, { error: 'not found' });
    }
    if (req.method !== 'POST') return send(res, 405, { error: 'method not allowed' });
    const body = await readJson(req);
    const decide = /^\/api\/approvals\/([^/]+)$/.exec(path);
    if (decide) {
      const found = approvals.decide(decodeURIComponent(decide[1]), approvalDecision(body));
      return send(res, found ? 200 : 404, found ? { ok: true } : { error: 'no such pending request' });
    }
    switch (path) {
      case '/api/sessions/revoke': {
        const origin = stringMember(body, 'origin');
        if (origin === undefined) return send(res, 400, { error: 'origin is required' });
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
        const namespace = stringMember(body, 'namespace');
        const address = stringMember(body, 'address');
        if (!namespace || !address) return send(res, 400, { error: 'namespace and address are required' });
        await account.fund(namespace, address);
        return send(res, 200, { ok: true });
      }
      default:
        return send(res, 404, { error: 'not found' });
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
      if (!url.pathname.startsWith('/api/')) return send(res, 404, { error: 'not found' });
      if (!authorised(req)) return send(res, 401, { error: 'the approval token is missing or wrong' });
      await api(req, res, url.pathname);
    } catch (error) {
      if (res.headersSent) return;
      const status = error instanceof HttpError ? error.status : 400;
      send(res, status, { error: error instanceof Error ? error.message : String(error) });
    }
  });
}
