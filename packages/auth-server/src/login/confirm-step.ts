// The login page's confirmation step (export policy `user` or `off`): the app never holds the key
// nor a share, so for an MFA user the page asks for a typed factor that the service checks itself,
// as `/api/mfa/confirm` does, and marks the new sign-in; the app's session then has the rights of a
// confirmed sign-in (`endSession`, the account page, `revokeDevice`) from the start. The user may
// skip it. Kept (sealed) by loginId until the factor or the skip, or the login's end.
import type { MfaFactor } from '@portico/auth';
import { storeKeyOf } from '@portico/auth/protocol';
import { FLOW_TTL_MS, type LoginContext } from './context.ts';
import { openJson, sealJson } from './sealed.ts';

/**
 * The factors a sign-in may confirm with: those checked from the MFA record and the user id alone
 * (a passkey answers a challenge bound to the sign-in). Not social backup: its check is a second
 * login, whose id depends on the login's network, which a sign-in does not keep.
 */
export const CONFIRMABLE: readonly MfaFactor[] = [
  'passwordFactor',
  'backUpShareFactor',
  'authenticatorFactor',
  'passkeysFactor',
];

/** A login stopped on the confirmation step: where the result goes, and whose sign-in it marks. */
export interface ConfirmStep {
  redirect: string;
  factors: MfaFactor[];
  userId: string;
  chainId: string;
}

const nameOf = (loginId: string) => `mfa-confirm:${storeKeyOf(loginId)}`;

export async function parkConfirmStep(ctx: LoginContext, loginId: string, step: ConfirmStep): Promise<void> {
  const { store, envelope, now } = ctx.deps;
  const name = nameOf(loginId);
  await store.deleteSession(name);
  await store.putSession(name, sealJson(envelope, name, step), now() + FLOW_TTL_MS);
}

/** The login's confirmation step, if it is on one. */
export async function readConfirmStep(ctx: LoginContext, loginId: string): Promise<ConfirmStep | undefined> {
  const { store, envelope, now } = ctx.deps;
  const name = nameOf(loginId);
  const sealed = await store.getSession(name, now());
  return sealed === undefined ? undefined : openJson<ConfirmStep>(envelope, name, sealed);
}

/** Ends the step and the login (the page goes on to the app's result). */
export async function endConfirmStep(ctx: LoginContext, loginId: string): Promise<void> {
  await ctx.deps.store.deleteSession(nameOf(loginId));
  await ctx.deps.store.deleteSession(storeKeyOf(loginId));
}
