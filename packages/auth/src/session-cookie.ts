// Cookie mode: hands the session's idToken to the app's own server (an endpoint made with
// `@portico/auth/server`), which keeps it in an HttpOnly cookie, so server-rendered pages know the
// user. Posts after login, restore and every renewal; DELETEs on logout and expiry.
import { AuthValidationError } from './errors.ts';

/** `sessionCookie` of `AuthOptions`. */
export interface SessionCookieOption {
  /** The app's endpoint, e.g. `/api/portico-session` (same origin: the cookie is set there). */
  endpoint: string;
}

export class SessionCookieSync {
  /** The idToken the server holds now (undefined: none, or not known yet). */
  private sent?: string;
  private known = false;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly option: SessionCookieOption,
    private readonly fetcher: typeof fetch,
    private readonly warn: (message: string) => void,
  ) {
    if (typeof option?.endpoint !== 'string' || option.endpoint === '') {
      throw new AuthValidationError(
        'sessionCookie.endpoint',
        'the URL of the app’s session endpoint',
        option?.endpoint,
      );
    }
  }

  /** Brings the cookie in line with the session's idToken (undefined: no session); in call order. */
  update(idToken: string | undefined): void {
    if (this.known && idToken === this.sent) return;
    // Nothing to clear on a first look with no session: an old cookie expires with its token.
    if (!this.known && idToken === undefined) {
      this.known = true;
      return;
    }
    this.known = true;
    this.sent = idToken;
    this.queue = this.queue.then(() => this.send(idToken));
  }

  /** Resolves once the cookie requests made so far are answered. */
  settled(): Promise<void> {
    return this.queue;
  }

  private async send(idToken: string | undefined): Promise<void> {
    try {
      const res = await this.fetcher(this.option.endpoint, {
        method: idToken ? 'POST' : 'DELETE',
        credentials: 'same-origin',
        headers: idToken ? { 'content-type': 'application/json' } : {},
        body: idToken ? JSON.stringify({ idToken }) : undefined,
      });
      if (!res.ok) throw new Error(`${res.status} ${await res.text().catch(() => '')}`.trim());
    } catch (err) {
      this.warn(`the session cookie could not be ${idToken ? 'set' : 'cleared'}: ${(err as Error).message}`);
    }
  }
}
