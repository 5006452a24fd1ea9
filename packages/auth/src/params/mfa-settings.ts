// `mfaSettings`: which factors a user sets up, in which order, and which are mandatory.
import { type Infer, optional, refine } from '@metamask/superstruct';
import { exact, failAt, flag, list, wholeNumber } from './rules.ts';
import { MFA_FACTORS } from './values.ts';

const setting = refine(
  exact(
    {
      enable: flag,
      /** The lowest number is set up first. */
      priority: optional(wholeNumber('a whole number, 1 or more (lowest is set up first)', 1)),
      mandatory: optional(flag),
    },
    { shape: 'an object {enable, priority?, mandatory?}' },
  ),
  'mandatoryIfEnabled',
  (s, ctx) =>
    !(s.mandatory && !s.enable) ||
    failAt([...ctx.path, 'mandatory'], 'false when the factor is not enabled', true),
);
export type MfaSetting = Infer<typeof setting>;

export const mfaSettings = refine(
  exact(
    {
      deviceShareFactor: optional(setting),
      backUpShareFactor: optional(setting),
      socialBackupFactor: optional(setting),
      passwordFactor: optional(setting),
      /** Beyond `002_…txt`: an authenticator app (TOTP). */
      authenticatorFactor: optional(setting),
      /** Beyond `002_…txt`: a passkey, set up and used on the login page. */
      passkeysFactor: optional(setting),
    },
    { shape: `an object with ${list(MFA_FACTORS)}` },
  ),
  'twoFactorsDistinctPriorities',
  (settings, ctx) => {
    const enabled = MFA_FACTORS.filter((factor) => settings[factor]?.enable);
    if (enabled.length < 2) {
      return failAt(ctx.path, `at least two enabled factors of ${list(MFA_FACTORS)}`, enabled);
    }
    const seen = new Map<number, string>();
    for (const factor of enabled) {
      const priority = settings[factor]?.priority;
      if (priority === undefined) continue;
      const other = seen.get(priority);
      if (other)
        return failAt([...ctx.path, factor, 'priority'], `a priority not used by ${other}`, priority);
      seen.set(priority, factor);
    }
    return true;
  },
);
export type MfaSettings = Infer<typeof mfaSettings>;
