// The rights of a whole sign-in (ending the user's other sessions, the account page) need the
// second factor when MFA is on. Two ways to show it: `proof`, the call signed by the rebuilt key
// (export policy `app`: the library rebuilds the key), or a mark the service keeps beside the chain
// once this session passed a typed factor on `/api/mfa/confirm` (policies `user` and `off`: the app
// never holds a share, so it cannot rebuild the key and must not be handed one to sign with).
import { mfaProofMessage, verifyStoreMessage } from '@portico/auth/protocol';
import { HttpError } from './http.ts';
import type { AuthStore, ChainRow } from './store.ts';

export interface SecondFactorDeps {
  store: AuthStore;
  /** The public key of the user's rebuilt key when MFA is on for the user. */
  mfaPublicKey: (userId: string) => Promise<string | undefined>;
}

/** Per chain, not per sessionId: renewals keep it; the chain's end (logout, revoke) deletes it. */
export const markName = (chainId: string) => `mfa-passed:${chainId}`;

/** Marks the chain as having passed the second factor, until the chain's absolute end. */
export async function markSecondFactor(store: AuthStore, chain: ChainRow): Promise<void> {
  await store.putSession(markName(chain.id), '1', chain.endsAt);
}

/** Throws `SECOND_FACTOR_REQUIRED` unless the user has no MFA, `proof` is good, or the chain is marked. */
export async function requireSecondFactor(
  deps: SecondFactorDeps,
  chain: ChainRow,
  call: { path: string; key: string; payloadJson: string; proof?: string },
  now: number,
): Promise<void> {
  const publicKey = await deps.mfaPublicKey(chain.userId);
  if (!publicKey) return;
  const { path, key, payloadJson, proof } = call;
  if (proof !== undefined && verifyStoreMessage(publicKey, mfaProofMessage(path, key, payloadJson), proof))
    return;
  if ((await deps.store.getSession(markName(chain.id), now)) !== undefined) return;
  throw new HttpError(
    403,
    'SECOND_FACTOR_REQUIRED',
    'This call needs the second factor: rebuild the key (complete MFA), or confirm a factor (confirmSecondFactor)',
  );
}
