// Field rules the init and login parameters share: URLs, logos, colours, session times.
import { rule } from './rules.ts';

/** Schemes that run or read content rather than reach a site or an app: never a redirect. */
const NOT_A_REDIRECT = ['javascript:', 'data:', 'file:', 'blob:', 'about:', 'vbscript:', 'filesystem:'];

/**
 * An absolute URL. `web`: http(s) only (sdkUrl, appUrl); `redirect`: also a native app's custom
 * scheme (`com.example.app://auth`), never a scheme that runs or reads content.
 */
export function url(kind: 'web' | 'redirect') {
  return rule<string>((v) => {
    if (typeof v !== 'string' || v.trim() === '') return 'a non-empty string';
    let parsed: URL;
    try {
      parsed = new URL(v);
    } catch {
      return 'an absolute URL';
    }
    if (kind === 'web' && parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
      return 'an http(s) URL';
    if (kind === 'redirect' && NOT_A_REDIRECT.includes(parsed.protocol)) {
      return "an http(s) URL, a loopback address or an app's custom scheme such as com.example.app://auth";
    }
    return true;
  });
}

/**
 * A logo the login page can show: its Content-Security-Policy loads images over https: or from
 * data:image/ URLs only, so anything else (http:, relative paths) is refused here instead of
 * passing and then showing no logo.
 */
export const logoUrl = rule<string>((v) => {
  if (typeof v !== 'string' || v.trim() === '') return 'a non-empty string';
  const ok = URL.canParse(v) && (new URL(v).protocol === 'https:' || /^data:image\//i.test(v));
  return (
    ok || "an https: URL or a data:image/ URL (the login page's Content-Security-Policy shows only those)"
  );
});

const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
export const colour = rule<string>(
  (v) => (typeof v === 'string' && COLOR.test(v)) || 'a hex colour like #0364FF',
);

/**
 * Seconds, 1 or more. No upper cap: the spec sets none (the incumbent's 7 days is its own service's
 * policy); a Portico service may set `maxSessionTime`, and the library warns when it applies.
 */
export const sessionTime = rule<number>(
  (t) =>
    (typeof t === 'number' && Number.isSafeInteger(t) && t > 0 && Number.isSafeInteger(t * 1000)) ||
    'a whole number of seconds, 1 or more',
);
