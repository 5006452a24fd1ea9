// The wallet logs its user in as an auth client of its own, in this process: the login page's
// result (a sessionId in the redirect's fragment) comes back to the wallet's callback, and the keys
// are read and derived here. They never reach the approval page, which shows dapp-supplied text.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  Auth,
  AuthError,
  type AuthInitParams,
  type AuthLoginParams,
  MemoryStorage,
  normalizeInitParams,
} from '@portico/auth';
import { hexToBytes } from 'viem';
import { type LocalAccount, privateKeyToAccount } from 'viem/accounts';
import { type SolanaAccount, solanaAccountFromPrivateKey } from './keyring.ts';

export type WalletAuthOptions = {
  /** The auth service's base URL (`sdkUrl`; in `portico dev`, `auth.sdkUrl` of `--config-out`). */
  sdkUrl: string;
  /** The project the keys are for: the wallet holds what `@portico/auth` gives the user for this clientId. */
  clientId: string;
  /** Default `sapphire_devnet`. */
  network?: AuthInitParams['network'];
  /** Login providers the login page lists (as in `Auth.create`); default: the service's own list. */
  loginConfig?: AuthInitParams['loginConfig'];
  /** Hold the user's coreKitKey (the same in every app of the verifier) instead of the app-scoped key. */
  useCoreKitKey?: boolean;
  /** The app name the login page shows; default "Portico wallet". */
  appName?: string;
};

/** Who is logged in (from the auth service's user info; no keys, no tokens). */
export type WalletUser = { verifier: string; verifierId: string; email?: string; name?: string };

/** The login parameters a wallet login takes: `loginProvider`, and `extraLoginOptions.id_token` for a JWT login. */
export type WalletLoginParams = Pick<AuthLoginParams, 'loginProvider' | 'extraLoginOptions'>;

/** A login either finished (a JWT login) or waits for the person on the auth service's login page. */
export type WalletLoginStart = { user: WalletUser } | { loginUrl: string };

export type LoginAccounts = { eip155: LocalAccount; solana: SolanaAccount };

type Attempt = {
  nonce: Buffer;
  arrive: (href: string) => void;
  cancel: () => void;
  settled: boolean;
};

/** The user's accounts from the keys `@portico/auth` hands out (secp256k1 hex; ed25519 `seed ‖ publicKey` hex). */
export function accountsFromAuthKeys(privKey: string, ed25519PrivKey: string): LoginAccounts {
  const seed = hexToBytes(`0x${ed25519PrivKey.slice(0, 64)}`);
  const solana = solanaAccountFromPrivateKey(seed);
  seed.fill(0);
  return { eip155: privateKeyToAccount(`0x${privKey}`), solana };
}

/**
 * Login attempts and the session of the logged-in user. `onLogin` receives the user's accounts;
 * `onLogout` runs when the session ends (logout, another login's replacement happens in onLogin,
 * expiry). One attempt at a time: a new one cancels the one still waiting.
 */
export function createLoginSessions(options: {
  auth: WalletAuthOptions;
  /** The wallet's callback for an attempt (`<wallet>/login/callback/<nonce>`). */
  callbackUrl: (nonce: string) => string;
  onLogin: (user: WalletUser, accounts: LoginAccounts) => Promise<void>;
  onLogout: (reason: 'logout' | 'expired') => Promise<void>;
  onLog: (line: string) => void;
}) {
  const { auth: config, onLog: log } = options;
  const initParams = (redirectUrl: string): AuthInitParams => ({
    clientId: config.clientId,
    network: config.network ?? 'sapphire_devnet',
    sdkUrl: config.sdkUrl,
    redirectUrl,
    loginConfig: config.loginConfig,
    useCoreKitKey: config.useCoreKitKey,
    whiteLabel: { appName: config.appName ?? 'Portico wallet' },
  });
  // Refused at start-up rather than at the first click.
  normalizeInitParams(initParams('http://127.0.0.1/'));

  let current: { auth: Auth; user: WalletUser } | undefined;
  let attempt: Attempt | undefined;
  let lastError: string | undefined;

  async function finish(auth: Auth, mine: Attempt): Promise<WalletUser> {
    const info = auth.getUserInfo();
    const user: WalletUser = { verifier: info.verifier, verifierId: info.verifierId };
    if (info.email) user.email = info.email;
    if (info.name) user.name = info.name;
    if (attempt !== mine) {
      // Superseded while the session was read: this login is not wanted any more.
      await auth.logout().catch(() => {});
      throw AuthError.userCancelled();
    }
    attempt = undefined;
    const previous = current;
    current = { auth, user };
    auth.on('sessionExpired', () => {
      if (current?.auth !== auth) return;
      current = undefined;
      log('wallet: the login session expired; the wallet holds no accounts until the next login');
      void options.onLogout('expired');
    });
    await options.onLogin(user, accountsFromAuthKeys(auth.getPrivKey(), auth.getEd25519PrivKey()));
    log(`wallet: logged in (${user.verifier})`);
    // The previous user's session ends on the service too.
    await previous?.auth.logout().catch(() => {});
    return user;
  }

  return {
    /** Starts a login; a JWT login (`extraLoginOptions.id_token`) finishes before this resolves. */
    async start(params: WalletLoginParams = {}): Promise<WalletLoginStart> {
      attempt?.cancel();
      const nonce = randomBytes(16);
      let opened: (url: string) => void = () => {};
      const loginUrl = new Promise<string>((resolve) => {
        opened = resolve;
      });
      const mine: Attempt = { nonce, arrive: () => {}, cancel: () => {}, settled: false };
      // Cancelled before the login page opened (a JWT login in flight): finish() drops it.
      mine.cancel = () => {
        if (attempt === mine) attempt = undefined;
      };
      attempt = mine;
      lastError = undefined;
      const auth = await Auth.create(initParams(options.callbackUrl(nonce.toString('hex'))), {
        storage: new MemoryStorage(),
        onWarning: (message) => log(`wallet: auth: ${message}`),
        openUrl: (url) =>
          new Promise<string>((resolve, reject) => {
            mine.arrive = (href) => {
              mine.settled = true;
              resolve(href);
            };
            mine.cancel = () => {
              // Once the result arrived the login finishes; a later cancel (the popup closing) is late.
              if (mine.settled) return;
              mine.settled = true;
              if (attempt === mine) attempt = undefined;
              reject(AuthError.userCancelled());
            };
            opened(url);
          }),
      });
      const done = auth.login(params).then(
        () => finish(auth, mine),
        (error: unknown) => {
          if (attempt === mine) attempt = undefined;
          throw error;
        },
      );
      done.catch((error: unknown) => {
        const cancelled = error instanceof AuthError && error.code === 'USER_CANCELLED';
        if (!cancelled && attempt === undefined) lastError = (error as Error).message;
        log(`wallet: login ${cancelled ? 'cancelled' : `failed: ${(error as Error).message}`}`);
      });
      return Promise.race([loginUrl.then((url) => ({ loginUrl: url })), done.then((user) => ({ user }))]);
    },
    /** The login result the callback page hands back; false when no attempt waits for this nonce. */
    arrive(nonce: string, href: string): boolean {
      const waiting = attempt;
      const given = Buffer.from(nonce, 'hex');
      if (!waiting || waiting.settled || given.length !== waiting.nonce.length) return false;
      if (!timingSafeEqual(given, waiting.nonce)) return false;
      waiting.arrive(href);
      return true;
    },
    /** Cancels the attempt still waiting on the login page (the person closed it). */
    cancel(): boolean {
      if (!attempt) return false;
      attempt.cancel();
      return true;
    },
    /** Ends the session on the service; resolves false when nobody was logged in. */
    async logout(): Promise<boolean> {
      const ending = current;
      if (!ending) return false;
      current = undefined;
      await options.onLogout('logout');
      await ending.auth.logout().catch((error: unknown) => {
        log(`wallet: the auth service did not end the session: ${(error as Error).message}`);
      });
      log('wallet: logged out');
      return true;
    },
    get user(): WalletUser | undefined {
      return current?.user;
    },
    get pending(): boolean {
      return attempt !== undefined;
    },
    /** Why the last attempt failed (not for a cancelled one); cleared by the next attempt. */
    get error(): string | undefined {
      return lastError;
    },
  };
}

export type LoginSessions = ReturnType<typeof createLoginSessions>;
