import { CHAIN_ID_RULES, normalizeChainId } from './chain-id.ts';
import { AuthValidationError } from './errors.ts';
import { setOwn } from './own.ts';
import {
  type AuthInitParams,
  type AuthLoginConfig,
  type AuthLoginParams,
  type AuthWhiteLabelData,
  BUILD_ENVS,
  type ChainConfig,
  CURVES,
  DEFAULT_SESSION_TIME,
  type ExtraLoginOptions,
  LANGUAGES,
  type Language,
  LOGIN_PROVIDERS,
  MFA_FACTORS,
  MFA_LEVELS,
  type MfaSetting,
  type MfaSettings,
  NETWORKS,
  PROVIDER_NAMESPACES,
  THEME_MODES,
  TYPES_OF_LOGIN,
} from './types.ts';

/** One v6 → v7 conversion: the field, what it became and why. */
export interface MigrationChange {
  field: string;
  to: string;
  message: string;
}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function list(values: readonly string[]): string {
  return values.join(', ');
}

function oneOf<T extends string>(field: string, v: unknown, values: readonly T[]): T {
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw new AuthValidationError(field, list(values), v);
  }
  return v as T;
}

function str(field: string, v: unknown, nonEmpty = false): string {
  if (typeof v !== 'string' || (nonEmpty && v.trim() === '')) {
    throw new AuthValidationError(field, nonEmpty ? 'a non-empty string' : 'a string', v);
  }
  return v;
}

function bool(field: string, v: unknown): boolean {
  if (typeof v !== 'boolean') throw new AuthValidationError(field, 'true or false', v);
  return v;
}

/** Schemes that run or read content rather than reach a site or an app: never a redirect. */
const NOT_A_REDIRECT = ['javascript:', 'data:', 'file:', 'blob:', 'about:', 'vbscript:', 'filesystem:'];

/**
 * An absolute URL. `web`: http(s) only (sdkUrl, appUrl); `redirect`: also a native app's custom
 * scheme (`com.example.app://auth`), never a scheme that runs or reads content.
 */
function url(field: string, v: unknown, kind: 'web' | 'redirect'): string {
  const s = str(field, v, true);
  let parsed: URL;
  try {
    parsed = new URL(s);
  } catch {
    throw new AuthValidationError(field, 'an absolute URL', v);
  }
  if (kind === 'web' && parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new AuthValidationError(field, 'an http(s) URL', v);
  }
  if (kind === 'redirect' && NOT_A_REDIRECT.includes(parsed.protocol)) {
    throw new AuthValidationError(
      field,
      "an http(s) URL, a loopback address or an app's custom scheme such as com.example.app://auth",
      v,
    );
  }
  return s;
}

/**
 * A logo the login page can show: its Content-Security-Policy loads images over https: or from
 * data:image/ URLs only, so anything else (http:, relative paths) is refused here instead of
 * passing and then showing no logo.
 */
function logoUrl(field: string, v: unknown): string {
  const s = str(field, v, true);
  const ok = URL.canParse(s) && (new URL(s).protocol === 'https:' || /^data:image\//i.test(s));
  if (!ok) {
    throw new AuthValidationError(
      field,
      "an https: URL or a data:image/ URL (the login page's Content-Security-Policy shows only those)",
      v,
    );
  }
  return s;
}

function noUnknownKeys(field: string, o: Obj, allowed: readonly string[]): void {
  for (const key of Object.keys(o)) {
    if (!allowed.includes(key)) {
      throw new AuthValidationError(`${field}.${key}`, `known fields of ${field}: ${list(allowed)}`, o[key]);
    }
  }
}

const COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
/** A CAIP-2 namespace. */
const NAMESPACE = /^[-a-z0-9]{3,8}$/;

const WHITE_LABEL_KEYS = [
  'appName',
  'logoLight',
  'logoDark',
  'defaultLanguage',
  'mode',
  'theme',
  'appUrl',
  'useLogoLoader',
] as const;

function isLanguage(v: unknown): v is Language {
  return typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v);
}

/**
 * One of the nine languages. v6 took any string: a tag whose primary subtag is one of the nine
 * ("de-DE", "EN") becomes that language; any other string ("it") becomes "en", with a warning.
 */
function language(field: string, v: unknown, changes: MigrationChange[]): Language {
  if (isLanguage(v)) return v;
  if (typeof v !== 'string') throw new AuthValidationError(field, list(LANGUAGES), v);
  const primary = v.toLowerCase().split(/[-_]/)[0];
  const to = isLanguage(primary) ? primary : 'en';
  changes.push({
    field,
    to,
    message:
      to === primary
        ? `${field} "${v}" is a v6 free-form language; v7 takes one of ${list(LANGUAGES)}: using "${to}"`
        : `${field} "${v}" is not one of the nine languages of the login page (${list(LANGUAGES)}): using "en"`,
  });
  return to;
}

function whiteLabel(v: unknown, changes: MigrationChange[]): AuthWhiteLabelData {
  const field = 'whiteLabel';
  if (!isObj(v)) throw new AuthValidationError(field, 'an object', v);
  const input: Obj = { ...v };
  // Fields only v6 had mark a v6 whiteLabel (a free-form language counts: v7 would refuse it).
  const v6 =
    'name' in input ||
    'dark' in input ||
    (typeof input.defaultLanguage === 'string' && !isLanguage(input.defaultLanguage));
  if ('name' in input) {
    if ('appName' in input)
      throw new AuthValidationError(`${field}.name`, 'only one of name (v6) or appName (v7)');
    changes.push({
      field: `${field}.name`,
      to: `${field}.appName`,
      message: 'whiteLabel.name is v6: renamed to appName',
    });
    input.appName = input.name;
    delete input.name;
  }
  if ('dark' in input) {
    if ('mode' in input) throw new AuthValidationError(`${field}.dark`, 'only one of dark (v6) or mode (v7)');
    const dark = bool(`${field}.dark`, input.dark);
    const mode = dark ? 'dark' : 'light';
    changes.push({
      field: `${field}.dark`,
      to: `${field}.mode`,
      message: `whiteLabel.dark is v6: replaced by mode "${mode}"`,
    });
    input.mode = mode;
    delete input.dark;
  } else if (v6 && !('mode' in input)) {
    changes.push({
      field: `${field}.dark`,
      to: `${field}.mode`,
      message:
        'whiteLabel is v6 and has no dark: v6 showed it light, so mode "light" (not v7\'s default "auto")',
    });
    input.mode = 'light';
  }
  noUnknownKeys(field, input, WHITE_LABEL_KEYS);
  const out: AuthWhiteLabelData = {};
  if (input.appName !== undefined) out.appName = str(`${field}.appName`, input.appName);
  if (input.logoLight !== undefined) out.logoLight = logoUrl(`${field}.logoLight`, input.logoLight);
  if (input.logoDark !== undefined) out.logoDark = logoUrl(`${field}.logoDark`, input.logoDark);
  if (input.defaultLanguage !== undefined) {
    out.defaultLanguage = language(`${field}.defaultLanguage`, input.defaultLanguage, changes);
  }
  if (input.mode !== undefined) out.mode = oneOf(`${field}.mode`, input.mode, THEME_MODES);
  if (input.theme !== undefined) {
    if (!isObj(input.theme))
      throw new AuthValidationError(`${field}.theme`, 'an object like {"primary": "#0364FF"}', input.theme);
    const theme: Record<string, string> = {};
    for (const [key, colour] of Object.entries(input.theme)) {
      if (typeof colour !== 'string' || !COLOR.test(colour)) {
        throw new AuthValidationError(`${field}.theme.${key}`, 'a hex colour like #0364FF', colour);
      }
      setOwn(theme, key, colour);
    }
    out.theme = theme;
  }
  if (input.appUrl !== undefined) out.appUrl = url(`${field}.appUrl`, input.appUrl, 'web');
  if (input.useLogoLoader !== undefined)
    out.useLogoLoader = bool(`${field}.useLogoLoader`, input.useLogoLoader);
  return out;
}

const EXTRA_STRING_KEYS = [
  'display',
  'prompt',
  'max_age',
  'ui_locales',
  'id_token_hint',
  'id_token',
  'login_hint',
  'acr_values',
  'scope',
  'audience',
  'connection',
  'domain',
  'client_id',
  'redirect_uri',
  'verifierIdField',
] as const;
const EXTRA_KEYS = [...EXTRA_STRING_KEYS, 'leeway', 'isVerifierIdCaseSensitive', 'additionalParams'];

/** Validates ExtraLoginOptions. */
export function validateExtraLoginOptions(v: unknown, field = 'extraLoginOptions'): ExtraLoginOptions {
  if (!isObj(v)) throw new AuthValidationError(field, 'an object', v);
  noUnknownKeys(field, v, EXTRA_KEYS);
  const out: ExtraLoginOptions = {};
  for (const key of EXTRA_STRING_KEYS) {
    if (v[key] !== undefined) out[key] = str(`${field}.${key}`, v[key]);
  }
  if (v.leeway !== undefined) {
    if (typeof v.leeway !== 'number' || !Number.isInteger(v.leeway) || v.leeway < 0) {
      throw new AuthValidationError(`${field}.leeway`, 'a whole number of seconds, 0 or more', v.leeway);
    }
    out.leeway = v.leeway;
  }
  if (v.isVerifierIdCaseSensitive !== undefined) {
    out.isVerifierIdCaseSensitive = bool(`${field}.isVerifierIdCaseSensitive`, v.isVerifierIdCaseSensitive);
  }
  if (v.additionalParams !== undefined) {
    if (!isObj(v.additionalParams)) {
      throw new AuthValidationError(
        `${field}.additionalParams`,
        'an object of string values',
        v.additionalParams,
      );
    }
    const params: Record<string, string> = {};
    for (const [key, value] of Object.entries(v.additionalParams)) {
      setOwn(params, key, str(`${field}.additionalParams.${key}`, value));
    }
    out.additionalParams = params;
  }
  return out;
}

const LOGIN_CONFIG_KEYS = [
  'verifier',
  'typeOfLogin',
  'clientId',
  'name',
  'verifierSubIdentifier',
  'description',
  'logoHover',
  'logoLight',
  'logoDark',
  'mainOption',
  'showOnModal',
  'showOnDesktop',
  'showOnMobile',
  'jwtParameters',
] as const;

function loginConfigEntry(field: string, v: unknown): AuthLoginConfig {
  if (!isObj(v)) throw new AuthValidationError(field, 'an object with verifier, typeOfLogin, clientId', v);
  noUnknownKeys(field, v, LOGIN_CONFIG_KEYS);
  const out: AuthLoginConfig = {
    verifier: str(`${field}.verifier`, v.verifier, true),
    typeOfLogin: oneOf(`${field}.typeOfLogin`, v.typeOfLogin, TYPES_OF_LOGIN),
    clientId: str(`${field}.clientId`, v.clientId, true),
  };
  for (const key of [
    'name',
    'verifierSubIdentifier',
    'description',
    'logoHover',
    'logoLight',
    'logoDark',
  ] as const) {
    if (v[key] !== undefined) out[key] = str(`${field}.${key}`, v[key]);
  }
  for (const key of ['mainOption', 'showOnModal', 'showOnDesktop', 'showOnMobile'] as const) {
    if (v[key] !== undefined) out[key] = bool(`${field}.${key}`, v[key]);
  }
  if (v.jwtParameters !== undefined)
    out.jwtParameters = validateExtraLoginOptions(v.jwtParameters, `${field}.jwtParameters`);
  return out;
}

function mfaSettings(v: unknown): MfaSettings {
  const field = 'mfaSettings';
  if (!isObj(v)) throw new AuthValidationError(field, `an object with ${list(MFA_FACTORS)}`, v);
  noUnknownKeys(field, v, MFA_FACTORS);
  const out: MfaSettings = {};
  for (const factor of MFA_FACTORS) {
    const s = v[factor];
    if (s === undefined) continue;
    const f = `${field}.${factor}`;
    if (!isObj(s)) throw new AuthValidationError(f, 'an object {enable, priority?, mandatory?}', s);
    noUnknownKeys(f, s, ['enable', 'priority', 'mandatory']);
    const setting: MfaSetting = { enable: bool(`${f}.enable`, s.enable) };
    if (s.priority !== undefined) {
      if (typeof s.priority !== 'number' || !Number.isInteger(s.priority) || s.priority < 1) {
        throw new AuthValidationError(
          `${f}.priority`,
          'a whole number, 1 or more (lowest is set up first)',
          s.priority,
        );
      }
      setting.priority = s.priority;
    }
    if (s.mandatory !== undefined) setting.mandatory = bool(`${f}.mandatory`, s.mandatory);
    if (setting.mandatory && !setting.enable) {
      throw new AuthValidationError(`${f}.mandatory`, 'false when the factor is not enabled', true);
    }
    out[factor] = setting;
  }
  const enabled = MFA_FACTORS.filter((factor) => out[factor]?.enable);
  if (enabled.length < 2) {
    throw new AuthValidationError(field, `at least two enabled factors of ${list(MFA_FACTORS)}`, enabled);
  }
  const seen = new Map<number, string>();
  for (const factor of enabled) {
    const priority = out[factor]?.priority;
    if (priority === undefined) continue;
    const other = seen.get(priority);
    if (other) {
      throw new AuthValidationError(
        `${field}.${factor}.priority`,
        `a priority not used by ${other}`,
        priority,
      );
    }
    seen.set(priority, factor);
  }
  return out;
}

/**
 * Seconds, 1 or more. No upper cap: the spec sets none (the incumbent's 7 days is its own service's
 * policy); a Portico service may set `maxSessionTime`, and the library warns when it applies.
 */
function sessionTime(field: string, t: unknown): number {
  if (typeof t !== 'number' || !Number.isSafeInteger(t) || t <= 0 || !Number.isSafeInteger(t * 1000)) {
    throw new AuthValidationError(field, 'a whole number of seconds, 1 or more', t);
  }
  return t;
}

const INIT_KEYS = [
  'clientId',
  'network',
  'buildEnv',
  'sdkUrl',
  'redirectUrl',
  'whiteLabel',
  'loginConfig',
  'useCoreKitKey',
  'chainNamespace',
  'chainConfig',
  'mfaSettings',
  'sessionTime',
] as const;

export interface NormalizedInit {
  params: AuthInitParams & { buildEnv: NonNullable<AuthInitParams['buildEnv']>; sessionTime: number };
  /** v5/v6 fields converted, one entry per field (said as a warning by `Auth.create`). */
  changes: MigrationChange[];
}

/**
 * Validates v7 init parameters (v6 input accepted and converted) and fills defaults:
 * buildEnv `production`, sessionTime 86400, chainNamespace `eip155`.
 */
export function normalizeInitParams(input: unknown): NormalizedInit {
  if (!isObj(input)) throw new AuthValidationError('initParams', 'an object', input);
  const changes: MigrationChange[] = [];
  const v: Obj = { ...input };
  if ('MfaSettings' in v && !('mfaSettings' in v)) {
    v.mfaSettings = v.MfaSettings;
    delete v.MfaSettings;
  }
  noUnknownKeys('initParams', v, INIT_KEYS);
  const params: NormalizedInit['params'] = {
    clientId: str('clientId', v.clientId, true),
    network: oneOf('network', v.network, NETWORKS),
    buildEnv: v.buildEnv === undefined ? 'production' : oneOf('buildEnv', v.buildEnv, BUILD_ENVS),
    sessionTime: DEFAULT_SESSION_TIME,
  };
  if (v.sdkUrl !== undefined) params.sdkUrl = url('sdkUrl', v.sdkUrl, 'web');
  if (v.redirectUrl !== undefined) params.redirectUrl = url('redirectUrl', v.redirectUrl, 'redirect');
  if (v.whiteLabel !== undefined) params.whiteLabel = whiteLabel(v.whiteLabel, changes);
  if (v.loginConfig !== undefined) {
    if (!isObj(v.loginConfig))
      throw new AuthValidationError('loginConfig', 'an object keyed by login name', v.loginConfig);
    const lc: Record<string, AuthLoginConfig> = {};
    for (const [key, entry] of Object.entries(v.loginConfig))
      setOwn(lc, key, loginConfigEntry(`loginConfig.${key}`, entry));
    params.loginConfig = lc;
  }
  if (v.useCoreKitKey !== undefined) params.useCoreKitKey = bool('useCoreKitKey', v.useCoreKitKey);
  params.chainNamespace = 'eip155';
  if (v.chainNamespace !== undefined) {
    if (typeof v.chainNamespace !== 'string' || !NAMESPACE.test(v.chainNamespace)) {
      throw new AuthValidationError(
        'chainNamespace',
        'eip155, solana or another CAIP-2 namespace ([-a-z0-9]{3,8})',
        v.chainNamespace,
      );
    }
    params.chainNamespace = v.chainNamespace;
  }
  if (v.chainConfig !== undefined) {
    params.chainConfig = validateChainConfig(v.chainConfig);
    if (v.chainNamespace === undefined) params.chainNamespace = params.chainConfig.chainNamespace;
    else if (params.chainConfig.chainNamespace !== params.chainNamespace) {
      throw new AuthValidationError(
        'chainConfig.chainNamespace',
        `the same namespace as chainNamespace (${params.chainNamespace})`,
        params.chainConfig.chainNamespace,
      );
    }
  }
  if (v.mfaSettings !== undefined) params.mfaSettings = mfaSettings(v.mfaSettings);
  if (v.sessionTime !== undefined) params.sessionTime = sessionTime('sessionTime', v.sessionTime);
  return { params, changes };
}

const CHAIN_CONFIG_KEYS = [
  'chainNamespace',
  'chainId',
  'rpcTarget',
  'displayName',
  'blockExplorerUrl',
  'ticker',
  'tickerName',
  'logo',
  'decimals',
] as const;

/** An http(s) URL; the value is never echoed, since an RPC URL usually carries an API key. */
function rpcTarget(field: string, v: unknown): string {
  const allowed = 'an absolute http(s) JSON-RPC URL, e.g. <gateway>/<network>/v3/<API_KEY>';
  if (typeof v !== 'string') throw new AuthValidationError(field, allowed, typeof v);
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new AuthValidationError(field, allowed, '(not a URL)');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new AuthValidationError(field, allowed, `(a ${parsed.protocol} URL)`);
  }
  return v;
}

/**
 * Validates a chain for `auth.provider` (init's `chainConfig`, `auth.addChain`); the chainId comes
 * back in its one spelling (see `normalizeChainId`).
 */
export function validateChainConfig(v: unknown, field = 'chainConfig'): ChainConfig {
  if (!isObj(v)) throw new AuthValidationError(field, 'an object with chainNamespace, chainId, rpcTarget', v);
  noUnknownKeys(field, v, CHAIN_CONFIG_KEYS);
  const chainNamespace = oneOf(`${field}.chainNamespace`, v.chainNamespace, PROVIDER_NAMESPACES);
  const chainId = normalizeChainId(chainNamespace, v.chainId);
  if (!chainId) throw new AuthValidationError(`${field}.chainId`, CHAIN_ID_RULES[chainNamespace], v.chainId);
  const out: ChainConfig = {
    chainNamespace,
    chainId,
    rpcTarget: rpcTarget(`${field}.rpcTarget`, v.rpcTarget),
  };
  for (const key of ['displayName', 'ticker', 'tickerName'] as const) {
    if (v[key] !== undefined) out[key] = str(`${field}.${key}`, v[key], true);
  }
  for (const key of ['blockExplorerUrl', 'logo'] as const) {
    if (v[key] !== undefined) out[key] = url(`${field}.${key}`, v[key], 'web');
  }
  if (v.decimals !== undefined) {
    if (
      typeof v.decimals !== 'number' ||
      !Number.isInteger(v.decimals) ||
      v.decimals < 0 ||
      v.decimals > 36
    ) {
      throw new AuthValidationError(`${field}.decimals`, 'a whole number from 0 to 36', v.decimals);
    }
    out.decimals = v.decimals;
  }
  return out;
}

/** v5/v6 login parameters taken apart: what v7 takes in the init parameters, and the rest. */
export interface MigratedLoginParams {
  params: unknown;
  /** v5/v6 `loginParams.redirectUrl`: this login's redirect. */
  redirectUrl?: string;
  /** v5/v6 `loginParams.sessionTime`: this login's session length. */
  sessionTime?: number;
  changes: MigrationChange[];
}

/**
 * v5 and v6 took `redirectUrl` and `sessionTime` as login parameters (v7: init parameters). They are
 * still accepted, for the login they come with, with one warning each.
 */
export function migrateLoginParams(input: unknown): MigratedLoginParams {
  if (!isObj(input)) return { params: input, changes: [] };
  const { redirectUrl, sessionTime: time, ...params } = input;
  const out: MigratedLoginParams = { params, changes: [] };
  if (redirectUrl !== undefined) {
    out.redirectUrl = url('loginParams.redirectUrl', redirectUrl, 'redirect');
    out.changes.push({
      field: 'loginParams.redirectUrl',
      to: 'redirectUrl',
      message:
        'loginParams.redirectUrl is v5/v6: v7 takes redirectUrl in the init parameters (used for this login)',
    });
  }
  if (time !== undefined) {
    out.sessionTime = sessionTime('loginParams.sessionTime', time);
    out.changes.push({
      field: 'loginParams.sessionTime',
      to: 'sessionTime',
      message:
        'loginParams.sessionTime is v5/v6: v7 takes sessionTime in the init parameters (used for this login)',
    });
  }
  return out;
}

/** Validates login parameters against the (normalized) init parameters and fills defaults. */
export function validateLoginParams(input: unknown, init: AuthInitParams): AuthLoginParams {
  if (input === undefined) input = {};
  if (!isObj(input)) throw new AuthValidationError('loginParams', 'an object', input);
  noUnknownKeys('loginParams', input, [
    'loginProvider',
    'dappShare',
    'extraLoginOptions',
    'mfaLevel',
    'curve',
    'appState',
  ]);
  const out: AuthLoginParams = {
    mfaLevel: input.mfaLevel === undefined ? 'default' : oneOf('mfaLevel', input.mfaLevel, MFA_LEVELS),
    curve: input.curve === undefined ? 'secp256k1' : oneOf('curve', input.curve, CURVES),
  };
  if (input.loginProvider !== undefined) {
    const allowed = [...LOGIN_PROVIDERS, ...Object.keys(init.loginConfig ?? {})];
    out.loginProvider = oneOf('loginProvider', input.loginProvider, allowed);
  }
  if (input.dappShare !== undefined) {
    const share = str('dappShare', input.dappShare, true);
    if (share.trim().split(/\s+/).length !== 24)
      throw new AuthValidationError('dappShare', 'a 24-word share', '(not 24 words)');
    out.dappShare = share;
  }
  if (input.extraLoginOptions !== undefined)
    out.extraLoginOptions = validateExtraLoginOptions(input.extraLoginOptions);
  if (input.appState !== undefined) out.appState = str('appState', input.appState);
  if (out.loginProvider === 'jwt' && !init.loginConfig?.jwt && !out.extraLoginOptions?.id_token) {
    throw new AuthValidationError('extraLoginOptions.id_token', 'a JWT when loginProvider is "jwt"');
  }
  return out;
}
