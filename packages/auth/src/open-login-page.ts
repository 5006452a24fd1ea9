// Showing the login page: through the app's `openUrl`, a full-page redirect, or a popup.
import { AuthError } from './errors.ts';
import { decodeB64Value } from './login-result.ts';
import { browserWindow, POPUP_NAME, waitForPopup } from './popup.ts';

export interface OpenLoginPage {
  /** The login page to show. */
  url: string;
  /** Where the page sends the result. */
  redirectUrl: string;
  /** This login's `state`: only a result carrying it is this login's. */
  state: string;
  sdkUrl: string;
  openUrl?: (url: string, redirectUrl: string) => Promise<string>;
  uxMode?: 'popup' | 'redirect';
  /** Redirect mode: keeps the state for the page the browser comes back to. */
  rememberState: (state: string) => Promise<void> | void;
}

/**
 * Resolves with the URL the login page finally sent the browser to. In redirect mode it never
 * resolves: the page goes away, and `Auth.create` on the app page it comes back to reads the result.
 */
export async function openLoginPage(o: OpenLoginPage): Promise<string> {
  if (o.openUrl) return o.openUrl(o.url, o.redirectUrl);
  const win = browserWindow();
  if (!win) {
    return Promise.reject(
      new AuthError(
        'NO_BROWSER',
        'No browser here: pass options.openUrl to open the login page, or log in with "jwt"',
      ),
    );
  }
  if (o.uxMode === 'redirect') {
    await o.rememberState(o.state);
    win.location.assign(o.url);
    return new Promise<string>(() => {});
  }
  const popup = win.open(o.url, POPUP_NAME, 'popup,width=480,height=720');
  if (!popup) throw new AuthError('NO_BROWSER', 'The login popup was blocked: use uxMode "redirect"');
  return waitForPopup(win, popup, {
    sdkUrl: o.sdkUrl,
    redirectUrl: o.redirectUrl,
    isOurs: (raw) => decodeB64Value(raw)?.state === o.state,
  });
}

export type LoginMode = 'openUrl' | 'popup' | 'redirect' | 'none';

/** How the login page shows: through `openUrl`, a popup, a redirect, or not at all (no browser). */
export function loginMode(o: Pick<OpenLoginPage, 'openUrl' | 'uxMode'>): LoginMode {
  if (o.openUrl) return 'openUrl';
  if (!browserWindow()) return 'none';
  return o.uxMode === 'redirect' ? 'redirect' : 'popup';
}

/**
 * Where the login page sends the result when the app names no `redirectUrl`: in a redirect the
 * current page; in a popup (and outside browsers) the service's own `/done` page, so that no app
 * page — which may consume a result it finds — ever loads in the popup.
 */
export function defaultRedirectUrl(mode: LoginMode, sdkUrl: string): string {
  const win = browserWindow();
  if (win && mode !== 'popup') return win.location.href.split('#')[0];
  return `${sdkUrl}/done`;
}
