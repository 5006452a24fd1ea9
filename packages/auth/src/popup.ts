// Popup login. The popup ends on a page that hands the result (the `#b64Params` fragment) to the
// window that opened it with `postMessage`, so the app page never has to read it itself:
// - by default the auth service's own `/done` page, which posts to the opener's origin only (the
//   origin the library sent with the request, checked by the service like a redirect);
// - with an explicit `redirectUrl` on the app's origin, the library loaded on that page, which
//   posts to its own origin before `Auth.create` does anything else.
// The opener accepts a message only from its popup, from one of those two origins, carrying the
// `state` of the login it started; a page it cannot read (another origin) is never polled.
import { AuthError } from './errors.ts';

/** The `type` of the message a popup sends its opener. */
export const POPUP_MESSAGE = 'portico-auth:result';

/** The name the popup window is opened with. */
export const POPUP_NAME = 'portico-auth';

export interface MessageLike {
  source: unknown;
  origin: string;
  data: unknown;
}

/** The parts of `window` the login flows use (the library is typed without the DOM in mind). */
export interface BrowserWindow {
  location: { href: string; hash: string; origin: string; assign(url: string): void };
  history?: { replaceState(data: unknown, unused: string, url?: string): void };
  open(url: string, target: string, features: string): BrowserWindow | null;
  opener?: BrowserWindow | null;
  closed?: boolean;
  close(): void;
  postMessage(message: unknown, targetOrigin: string): void;
  addEventListener?(type: 'message', listener: (event: MessageLike) => void): void;
  removeEventListener?(type: 'message', listener: (event: MessageLike) => void): void;
}

export function browserWindow(): BrowserWindow | undefined {
  const g = globalThis as { window?: BrowserWindow; document?: unknown };
  return g.window && g.document ? g.window : undefined;
}

/** The raw `b64Params` value of a URL's fragment (or query), if any. */
export function rawB64Params(href: string): string | undefined {
  const u = new URL(href);
  return (
    new URLSearchParams(u.hash.slice(1)).get('b64Params') ?? u.searchParams.get('b64Params') ?? undefined
  );
}

function sameOrigin(win: BrowserWindow, other: BrowserWindow): boolean {
  try {
    return other.location.origin === win.location.origin;
  } catch {
    return false; // another origin: its location cannot be read
  }
}

/**
 * In a login popup whose `redirectUrl` is a page of the app: hands the popup-marked result on this
 * page to the opener (same origin only) and returns true; the opener closes the popup.
 */
export function handOffToOpener(win: BrowserWindow, isPopupResult: (raw: string) => boolean): boolean {
  const opener = win.opener;
  const raw = rawB64Params(win.location.href);
  if (!opener || !raw || !isPopupResult(raw) || !sameOrigin(win, opener)) return false;
  opener.postMessage({ type: POPUP_MESSAGE, b64Params: raw }, win.location.origin);
  return true;
}

/**
 * Waits for the popup's result: a message from the popup (from the auth service's origin, or the
 * redirect page's) or, for a same-origin redirect page without the library, the popup's address.
 * Resolves with `redirectUrl#b64Params=…` once `isOurs` accepts the result; rejects with
 * `USER_CANCELLED` when the popup is closed first.
 */
export function waitForPopup(
  win: BrowserWindow,
  popup: BrowserWindow,
  options: { sdkUrl: string; redirectUrl: string; isOurs: (raw: string) => boolean },
): Promise<string> {
  const origins = new Set([new URL(options.sdkUrl).origin]);
  if (/^https?:/.test(options.redirectUrl)) origins.add(new URL(options.redirectUrl).origin);
  const base = options.redirectUrl.split('#')[0];
  return new Promise<string>((resolve, reject) => {
    const done = (finish: () => void) => {
      clearInterval(timer);
      win.removeEventListener?.('message', onMessage);
      finish();
    };
    const accept = (raw: string) => {
      if (!options.isOurs(raw)) return false;
      done(() => {
        popup.close();
        resolve(`${base}#b64Params=${raw}`);
      });
      return true;
    };
    const onMessage = (event: MessageLike) => {
      if (event.source !== popup || !origins.has(event.origin)) return;
      const data = event.data as { type?: unknown; b64Params?: unknown } | null;
      if (typeof data !== 'object' || data === null || data.type !== POPUP_MESSAGE) return;
      if (typeof data.b64Params === 'string') accept(data.b64Params);
    };
    win.addEventListener?.('message', onMessage);
    const timer = setInterval(() => {
      if (popup.closed) {
        done(() => reject(AuthError.userCancelled()));
        return;
      }
      let href = '';
      try {
        href = popup.location.href;
      } catch {
        return; // on another origin: its message will come
      }
      const raw = href.startsWith(base) ? rawB64Params(href) : undefined;
      if (raw) accept(raw);
    }, 250);
  });
}
