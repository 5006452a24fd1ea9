// Where a login result (a sessionId in the URL fragment) may be sent. Web apps use http(s) URLs;
// native apps use a custom scheme registered by the app (`com.example.app://auth`, the iOS norm)
// or, on desktops, a loopback address on a port picked at run time (RFC 8252 §7.1, §7.3).

/** Schemes that run or read content instead of handing the URL to an app: never a redirect. */
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'blob:',
  'about:',
  'vbscript:',
  'filesystem:',
]);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function isWeb(url: URL): boolean {
  return url.protocol === 'https:' || url.protocol === 'http:';
}

/** Why a redirect URL can never be used, or undefined when it can be (subject to the allow-lists). */
export function unusableRedirect(value: string): string | undefined {
  if (!URL.canParse(value)) return 'redirectUrl must be an absolute URL';
  const url = new URL(value);
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `redirectUrl cannot use the ${url.protocol} scheme`;
  return undefined;
}

/** Checks the entries of an allow-list at startup. */
export function checkRedirectEntries(clientId: string, entries: readonly string[]): void {
  for (const entry of entries) {
    const why = unusableRedirect(entry);
    if (why) throw new Error(`allowedRedirects["${clientId}"]: ${entry}: ${why}`);
  }
}

function pathWithin(path: string, prefix: string): boolean {
  if (prefix === '' || prefix === '/') return true;
  return path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}

/**
 * Whether `redirectUrl` matches an allow-list entry:
 * - `https://app.example` — any URL on that origin; `https://app.example/auth` — that path and below;
 * - `http://127.0.0.1/cb` (a loopback host without a port) — any port, as RFC 8252 §7.3 asks;
 * - `com.example.app://auth` — that custom-scheme URL and what lies below it.
 */
export function redirectMatches(redirectUrl: string, entry: string): boolean {
  if (!URL.canParse(redirectUrl) || !URL.canParse(entry)) return false;
  const url = new URL(redirectUrl);
  const allowed = new URL(entry);
  if (url.protocol !== allowed.protocol) return false;
  if (!isWeb(url)) {
    const bare = `${url.protocol}${redirectUrl.slice(url.protocol.length).split('#')[0]}`;
    const prefix = entry.split('#')[0];
    return bare === prefix || (bare.startsWith(prefix) && /^[/?]/.test(bare.slice(prefix.length)));
  }
  const anyPort = LOOPBACK_HOSTS.has(allowed.hostname) && allowed.port === '';
  if (anyPort ? url.hostname !== allowed.hostname : url.host !== allowed.host) return false;
  return pathWithin(url.pathname, allowed.pathname);
}

export interface RedirectPolicy {
  /** Per clientId: the redirect URLs its login results may go to. */
  allowedRedirects?: Readonly<Record<string, readonly string[]>>;
  /** For clients without a list of their own: the http(s) origins allowed (unset: any). */
  allowedRedirectOrigins?: readonly string[];
  /** The service's own address (its `/done` page is always allowed). */
  sdkUrl: string;
}

/** Why `redirectUrl` is refused for `clientId`, or undefined when it is allowed. */
export function redirectRefusal(
  policy: RedirectPolicy,
  clientId: string,
  redirectUrl: string,
): string | undefined {
  const unusable = unusableRedirect(redirectUrl);
  if (unusable) return unusable;
  if (isServiceDonePage(policy, redirectUrl)) return undefined;
  const url = new URL(redirectUrl);
  const list =
    policy.allowedRedirects && Object.hasOwn(policy.allowedRedirects, clientId)
      ? policy.allowedRedirects[clientId]
      : undefined;
  if (list) {
    if (list.some((entry) => redirectMatches(redirectUrl, entry))) return undefined;
    return `redirectUrl ${redirectUrl.split('#')[0]} is not registered for this clientId on this auth service`;
  }
  if (!isWeb(url)) {
    return `redirectUrl ${url.protocol}// is an app scheme: register it for this clientId in the auth service's allowedRedirects`;
  }
  const origins = policy.allowedRedirectOrigins;
  if (origins && !origins.includes(url.origin)) {
    return `redirectUrl origin ${url.origin} is not allowed on this auth service`;
  }
  return undefined;
}

/** Whether `redirectUrl` is the service's own `/done` page (always allowed; it relays popup results). */
export function isServiceDonePage(policy: RedirectPolicy, redirectUrl: string): boolean {
  if (!URL.canParse(redirectUrl)) return false;
  const url = new URL(redirectUrl);
  return (
    url.origin === new URL(policy.sdkUrl).origin &&
    url.pathname === `${new URL(policy.sdkUrl).pathname.replace(/\/$/, '')}/done`
  );
}

/**
 * Why the `/done` page may not hand a login result to a window on `origin` (the app that opened
 * the popup), or undefined when it may: the origin must be one the client id may redirect to.
 */
export function relayOriginRefusal(
  policy: RedirectPolicy,
  clientId: string,
  origin: string,
): string | undefined {
  if (!URL.canParse(origin) || !isWeb(new URL(origin)))
    return `origin ${origin} cannot receive login results`;
  const list =
    policy.allowedRedirects && Object.hasOwn(policy.allowedRedirects, clientId)
      ? policy.allowedRedirects[clientId]
      : undefined;
  if (list) {
    // Any registered web address on that origin (or a loopback entry, any port) allows it.
    const onOrigin = (entry: string) =>
      URL.canParse(entry) &&
      isWeb(new URL(entry)) &&
      redirectMatches(new URL(new URL(entry).pathname, origin).href, entry);
    if (list.some(onOrigin)) return undefined;
    return `origin ${origin} is not registered for this clientId on this auth service`;
  }
  const origins = policy.allowedRedirectOrigins;
  if (origins && !origins.includes(origin)) return `origin ${origin} is not allowed on this auth service`;
  return undefined;
}
