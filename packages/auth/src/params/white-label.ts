// `whiteLabel`: the login page's name, logos, language, theme. v6 input (name, dark, a free-form
// language) is converted on the way in, one MigrationChange per field.
import { coerce, type Infer, optional } from '@metamask/superstruct';
import { AuthValidationError } from '../errors.ts';
import type { MigrationChange } from './changes.ts';
import { colour, logoUrl, url } from './fields.ts';
import { anObject, dict, exact, flag, list, oneOf, text } from './rules.ts';
import { LANGUAGES, type Language, THEME_MODES } from './values.ts';

const field = 'whiteLabel';

function isLanguage(v: unknown): v is Language {
  return typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v);
}

/**
 * One of the nine languages. v6 took any string: a tag whose primary subtag is one of the nine
 * ("de-DE", "EN") becomes that language; any other string ("it") becomes "en", with a warning.
 */
function language(changes: MigrationChange[]) {
  return coerce(oneOf(LANGUAGES), text, (v) => {
    if (isLanguage(v)) return v;
    const primary = v.toLowerCase().split(/[-_]/)[0];
    const to = isLanguage(primary) ? primary : 'en';
    const name = `${field}.defaultLanguage`;
    changes.push({
      field: name,
      to,
      message:
        to === primary
          ? `${name} "${v}" is a v6 free-form language; v7 takes one of ${list(LANGUAGES)}: using "${to}"`
          : `${name} "${v}" is not one of the nine languages of the login page (${list(LANGUAGES)}): using "en"`,
    });
    return to;
  });
}

/** v6's `name` and `dark` as v7's `appName` and `mode`; v6 showed light, so a v6 input gets `light`. */
function fromV6(v: Record<string, unknown>, changes: MigrationChange[]): Record<string, unknown> {
  const input = { ...v };
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
    if (typeof input.dark !== 'boolean')
      throw new AuthValidationError(`${field}.dark`, 'true or false', input.dark);
    const mode = input.dark ? 'dark' : 'light';
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
  return input;
}

/** The whiteLabel schema; v6 conversions are recorded in `changes`. */
export function whiteLabel(changes: MigrationChange[]) {
  const fields = exact({
    appName: optional(text),
    /** Logo for a dark background. */
    logoLight: optional(logoUrl),
    /** Logo for a light background. */
    logoDark: optional(logoUrl),
    defaultLanguage: optional(language(changes)),
    mode: optional(oneOf(THEME_MODES)),
    /** `primary` sets the login page's primary colour (default `#0364FF`). */
    theme: optional(dict(colour, 'an object like {"primary": "#0364FF"}')),
    appUrl: optional(url('web')),
    useLogoLoader: optional(flag),
  });
  return coerce(fields, anObject, (v) => fromV6(v, changes));
}

export type AuthWhiteLabelData = Infer<ReturnType<typeof whiteLabel>>;
