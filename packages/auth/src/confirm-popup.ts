// The MFA passkey's confirmation from an app (export policy `user` or `off`, where the app never
// holds the key): the passkey's relying party is the auth service, so it answers on the service's
// own page, opened in a popup with a one-time ticket (as the account page). The popup never keeps
// a handle back to the app and sends it nothing: the library asks the service whether the sign-in
// is marked, while the popup is open and once more when it closes.
import { AuthError } from './errors.ts';
import type { BrowserWindow } from './popup.ts';

/** The name the confirmation popup is opened with. */
export const CONFIRM_POPUP_NAME = 'portico-confirm';

export interface ConfirmSteps {
  /** The one-time link to the service's confirmation page. */
  url(): Promise<string>;
  /** Whether the sign-in is marked on the service. */
  confirmed(): Promise<boolean>;
}

export interface ConfirmWait {
  /** Between two questions to the service. */
  intervalMs: number;
  /** The longest wait, as long as the service's confirmation page lasts. */
  timeoutMs: number;
}

const DEFAULT_WAIT: ConfirmWait = { intervalMs: 1000, timeoutMs: 10 * 60 * 1000 };

/**
 * Opens the confirmation page in a popup and resolves once the service marked the sign-in. The
 * window opens before anything is awaited, so a click's user activation still counts. Rejects with
 * `NO_BROWSER` when the popup was blocked, `USER_CANCELLED` when it closed (or the wait ran out)
 * before the passkey answered; the popup is closed in every case.
 */
export async function confirmInPopup(
  win: BrowserWindow,
  steps: ConfirmSteps,
  wait: ConfirmWait = DEFAULT_WAIT,
): Promise<void> {
  const popup = win.open('about:blank', CONFIRM_POPUP_NAME, 'popup,width=480,height=640');
  if (!popup) {
    throw new AuthError(
      'NO_BROWSER',
      'The passkey confirmation popup was blocked: call confirmSecondFactor({ passkey: true }) from a click',
    );
  }
  const deadline = Date.now() + wait.timeoutMs;
  try {
    const url = await steps.url();
    popup.opener = null;
    popup.location.assign(url);
    for (;;) {
      await new Promise((ok) => setTimeout(ok, wait.intervalMs));
      // Read before asking: a popup that closes right after the answer still counts as confirmed.
      const closed = popup.closed === true;
      if (await steps.confirmed()) return;
      if (closed) {
        throw new AuthError(
          'USER_CANCELLED',
          'The passkey confirmation window was closed before the passkey answered',
        );
      }
      if (Date.now() >= deadline) {
        throw new AuthError(
          'USER_CANCELLED',
          `The passkey did not answer within ${Math.round(wait.timeoutMs / 60_000)} minutes`,
        );
      }
    }
  } finally {
    popup.close();
  }
}
