// MFA policy shared by the library and the service: which factors, in which order, and when the
// login asks the user to set MFA up.
import { MFA_FACTORS, type MfaLevel, type MfaSettings } from './types.ts';

export type MfaFactor = (typeof MFA_FACTORS)[number];

/** Used when the app gives no `mfaSettings`: device + backup phrase + password (social backup off). */
export const DEFAULT_MFA_SETTINGS: MfaSettings = {
  deviceShareFactor: { enable: true, priority: 1 },
  backUpShareFactor: { enable: true, priority: 2 },
  passwordFactor: { enable: true, priority: 3 },
  socialBackupFactor: { enable: false },
};

export interface FactorStep {
  factor: MfaFactor;
  mandatory: boolean;
}

/** The enabled factors in setup order: ascending `priority` (unset priorities last, in MFA_FACTORS order). */
export function setupOrder(settings: MfaSettings = DEFAULT_MFA_SETTINGS): FactorStep[] {
  return MFA_FACTORS.filter((f) => settings[f]?.enable)
    .map((factor, i) => ({ factor, i, priority: settings[factor]?.priority ?? Number.MAX_SAFE_INTEGER }))
    .sort((a, b) => a.priority - b.priority || a.i - b.i)
    .map(({ factor }) => ({ factor, mandatory: settings[factor]?.mandatory === true }));
}

export interface MfaPrompt {
  /** Show the setup screen on this login. */
  prompt: boolean;
  /** The user may skip setup (mandatory factors still cannot be skipped once set-up starts). */
  skippable: boolean;
}

/**
 * Whether a login of a user without MFA asks for setup. `loginCount` counts this login (1 = first).
 * default: every third login (only when the app configured `mfaSettings`), skippable;
 * optional: every login, skippable; mandatory: every login until set up, not skippable; none: never.
 */
export function mfaPrompt(level: MfaLevel, loginCount: number, hasSettings: boolean): MfaPrompt {
  switch (level) {
    case 'none':
      return { prompt: false, skippable: true };
    case 'mandatory':
      return { prompt: true, skippable: false };
    case 'optional':
      return { prompt: true, skippable: true };
    default:
      return { prompt: hasSettings && loginCount % 3 === 0, skippable: true };
  }
}

/** What the user chose on the setup screen. */
export interface MfaSetupChoice {
  /** Factors to set up now; mandatory ones must be there, and at least two in all. */
  factors: MfaFactor[];
}

/** Checks a setup choice against the settings; throws a clear error. */
export function checkSetupChoice(settings: MfaSettings, choice: MfaSetupChoice): void {
  const steps = setupOrder(settings);
  const enabled = new Set(steps.map((s) => s.factor));
  for (const f of choice.factors) {
    if (!enabled.has(f)) throw new Error(`MFA factor ${f} is not enabled by this app`);
  }
  const missing = steps.filter((s) => s.mandatory && !choice.factors.includes(s.factor));
  if (missing.length > 0) {
    throw new Error(`Mandatory MFA factor cannot be skipped: ${missing.map((s) => s.factor).join(', ')}`);
  }
  if (new Set(choice.factors).size < 2) throw new Error('MFA needs at least two factors set up');
}
