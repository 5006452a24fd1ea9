// The app's session endpoint: POST { idToken } sets the cookie, DELETE clears it. One decision
// function, and two adapters: node:http / Express / Connect, and Web Request → Response.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AuthError } from '../errors.ts';
import { checkCookieName, clearCookie, DEFAULT_COOKIE_NAME, readCookie, setCookie } from './cookie.ts';
import { checkOrigins, originAllowed, type RequestFacts, secureFor } from './origin.ts';
import {
  AuthServiceUnreachableError,
  createSessionVerifier,
  type SessionUser,
  type SessionVerifierOptions,
} from './verify.ts';

export interface SessionCookieOptions extends SessionVerifierOptions {
  /** Default `portico_session`. */
  cookieName?: string;
  /** Force `Secure` on or off; default on, except for pages on http://localhost (development). */
  secure?: boolean;
  /** Origins whose pages may set the cookie (default: the request's own host, from the Host header). */
  allowedOrigins?: string[];
}

/** Where `getUser` reads the cookie: a request (Node or Web), its headers, or a Cookie header value. */
export type CookieSource =
  | IncomingMessage
  | Request
  | { get(name: string): string | null | undefined }
  | string
  | null
  | undefined;

export interface SessionCookieHandler {
  /** node:http, Express and Connect: answers POST and DELETE; other methods go to `next` (or 405). */
  (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void;
  /** The same for Web `Request`s (Next.js route handlers: `export const POST = handler.fetch`). */
  fetch(request: Request): Promise<Response>;
  /** The signed-in user of a request, from the cookie; null when there is none or it does not verify. */
  getUser(source: CookieSource): Promise<SessionUser | null>;
  readonly cookieName: string;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body?: { error: { code: string; message: string } };
}

const MAX_BODY = 16 * 1024;
const fail = (status: number, code: string, message: string): Answer => ({
  status,
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
  body: { error: { code, message } },
});

/** A body the handler cannot read (not JSON, too large): answered 400, never thrown to the app. */
class BodyError extends AuthError {
  override name = 'BodyError';
  constructor(message: string) {
    super('INVALID_PARAMS', message);
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BodyError('the body is not JSON');
  }
}

export function createSessionCookieHandler(options: SessionCookieOptions): SessionCookieHandler {
  const verifier = createSessionVerifier(options);
  const cookieName = checkCookieName(options.cookieName ?? DEFAULT_COOKIE_NAME);
  const allowed = checkOrigins(options.allowedOrigins);
  const now = options.now ?? Date.now;

  async function decide(
    method: string,
    facts: RequestFacts & { contentType?: string },
    body: () => Promise<unknown>,
  ): Promise<Answer> {
    if (!originAllowed(facts, allowed)) {
      return fail(403, 'ORIGIN_REFUSED', 'Only the app’s own pages may set or clear its session cookie');
    }
    const secure = secureFor(facts.origin, options.secure);
    const done = (cookie: string): Answer => ({
      status: 204,
      headers: { 'set-cookie': cookie, 'cache-control': 'no-store' },
    });
    if (method === 'DELETE') return done(clearCookie(cookieName, secure));
    // application/json cannot be sent cross-site without a CORS preflight, which this never allows.
    if (!facts.contentType?.toLowerCase().startsWith('application/json')) {
      return fail(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the idToken as application/json');
    }
    let idToken: unknown;
    try {
      idToken = ((await body()) as { idToken?: unknown } | null)?.idToken;
    } catch (err) {
      return fail(400, 'INVALID_BODY', (err as Error).message);
    }
    if (typeof idToken !== 'string') return fail(400, 'INVALID_BODY', 'idToken must be a string');
    let user: SessionUser | null;
    try {
      user = await verifier.verify(idToken);
    } catch (err) {
      if (err instanceof AuthServiceUnreachableError) return fail(503, err.code, err.message);
      throw err;
    }
    if (!user) return fail(401, 'INVALID_TOKEN', 'The idToken is not a valid, unexpired token of this app');
    return done(setCookie(cookieName, idToken, (user.expiresAt - now()) / 1000, secure));
  }

  const header = (req: IncomingMessage, name: string): string | undefined => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };

  async function nodeBody(req: IncomingMessage): Promise<unknown> {
    // Express/Connect with a JSON body parser have read the stream already.
    const parsed = (req as { body?: unknown }).body;
    if (parsed !== undefined && typeof parsed !== 'string') return parsed;
    if (typeof parsed === 'string') return parseBody(parsed);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY) throw new BodyError('the body is too large');
      chunks.push(chunk);
    }
    return parseBody(Buffer.concat(chunks).toString('utf8'));
  }

  const handler = ((req, res, next) => {
    const method = req.method ?? 'GET';
    if (method !== 'POST' && method !== 'DELETE') {
      if (next) return next();
      res.writeHead(405, { allow: 'POST, DELETE' }).end();
      return;
    }
    const facts = {
      origin: header(req, 'origin'),
      host: header(req, 'host'),
      fetchSite: header(req, 'sec-fetch-site'),
      contentType: header(req, 'content-type'),
    };
    decide(method, facts, () => nodeBody(req)).then(
      (answer) => {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body ? JSON.stringify(answer.body) : undefined);
      },
      (err: unknown) => (next ? next(err) : res.writeHead(500).end()),
    );
  }) as SessionCookieHandler;

  handler.fetch = async (request) => {
    if (request.method !== 'POST' && request.method !== 'DELETE') {
      return new Response(null, { status: 405, headers: { allow: 'POST, DELETE' } });
    }
    const h = request.headers;
    const facts = {
      origin: h.get('origin') ?? undefined,
      host: h.get('host') ?? new URL(request.url).host,
      fetchSite: h.get('sec-fetch-site') ?? undefined,
      contentType: h.get('content-type') ?? undefined,
    };
    const answer = await decide(request.method, facts, async () => {
      const text = await request.text();
      if (text.length > MAX_BODY) throw new BodyError('the body is too large');
      return parseBody(text);
    });
    return new Response(answer.body ? JSON.stringify(answer.body) : null, {
      status: answer.status,
      headers: answer.headers,
    });
  };

  handler.getUser = async (source) => {
    const cookieHeader =
      typeof source === 'string' || source == null
        ? source
        : 'headers' in source
          ? source instanceof Request
            ? source.headers.get('cookie')
            : (source as IncomingMessage).headers.cookie
          : source.get('cookie');
    const token = readCookie(cookieHeader, cookieName);
    return token ? verifier.verify(token) : null;
  };

  Object.defineProperty(handler, 'cookieName', { value: cookieName, enumerable: true });
  return handler;
}
