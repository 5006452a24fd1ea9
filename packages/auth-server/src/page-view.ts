// What the login page shows for a parked request: the app's white label with the defaults filled
// in. The auth spec's (seeds/002) default for appName and appUrl is "the dApp's website URL": the page the library
// ran on; outside a browser, the redirectUrl's origin (or a native app's scheme); never this
// service's own address, which would show the user the wrong site.
import { DEFAULT_PRIMARY_COLOR, type LoginRequest, type ThemeModes } from '@portico/auth';

export interface PageWhiteLabel {
  /** Absent when nothing names the app: the page then says just "Sign in". */
  appName?: string;
  logoLight?: string;
  logoDark?: string;
  defaultLanguage: string;
  mode: ThemeModes;
  primary: string;
  appUrl?: string;
  useLogoLoader: boolean;
}

/** An http(s) origin that is not the service's own, or undefined. */
function siteOrigin(value: string | undefined, serviceOrigin: string): string | undefined {
  if (value === undefined || !URL.canParse(value)) return undefined;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  return url.origin === serviceOrigin ? undefined : url.origin;
}

/** A native app's custom scheme (`com.example.app` of `com.example.app://auth`), or undefined. */
function appScheme(redirectUrl: string): string | undefined {
  if (!URL.canParse(redirectUrl)) return undefined;
  const { protocol } = new URL(redirectUrl);
  return protocol === 'https:' || protocol === 'http:' ? undefined : protocol.slice(0, -1);
}

export function pageWhiteLabel(request: LoginRequest, sdkUrl: string): PageWhiteLabel {
  const wl = request.options.whiteLabel ?? {};
  const serviceOrigin = new URL(sdkUrl).origin;
  const site =
    siteOrigin(request.origin, serviceOrigin) ?? siteOrigin(request.options.redirectUrl, serviceOrigin);
  const appUrl = wl.appUrl ?? site;
  return {
    appName: wl.appName ?? appUrl ?? appScheme(request.options.redirectUrl),
    logoLight: wl.logoLight,
    logoDark: wl.logoDark,
    defaultLanguage: wl.defaultLanguage ?? 'en',
    mode: wl.mode ?? 'auto',
    primary: wl.theme?.primary ?? DEFAULT_PRIMARY_COLOR,
    appUrl,
    useLogoLoader: wl.useLogoLoader ?? false,
  };
}
