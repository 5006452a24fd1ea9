// Logging in a user with MFA on: the session holds the service's share, and the key is rebuilt
// here from it and a second share — this device's (sealed in storage), a backup phrase, a
// password, the social backup or the dappShare. A typed factor (password, backup phrase, social
// backup) is checked by the service, which counts attempts, and answers with the factor's share.
import type { MfaLoginInput } from './auth-options.ts';
import { AuthError } from './errors.ts';
import { getAppScopedKey, getEd25519PrivKey, secp256k1PublicKey } from './keys.ts';
import {
  combineShares,
  type KeyShare,
  mnemonicToShare,
  openShareWithKey,
  sealShareWithKey,
  shareAt,
} from './mfa.ts';
import { typedFactorIn } from './mfa-factors.ts';
import { errorText, type ServiceClient, serviceError } from './service-client.ts';
import type { StorageAdapter } from './storage.ts';
import type { AuthState, MfaSessionData, SessionPayload } from './types.ts';

export { pickFactor } from './mfa-factors.ts';

/** A session of an MFA user whose key is not rebuilt yet. */
export interface PendingMfaSession {
  sessionId: string;
  payload: SessionPayload;
  dappShare?: string;
}

export interface StoredDevice {
  deviceId: string;
  sealed: string;
}

/** This device's MFA share, sealed under a key only the service holds, in the app's storage. */
export class DeviceShare {
  constructor(
    private readonly storage: StorageAdapter,
    private readonly key: string,
  ) {}

  async get(): Promise<StoredDevice | undefined> {
    const raw = await this.storage.get(this.key);
    if (!raw) return undefined;
    try {
      return JSON.parse(raw) as StoredDevice;
    } catch {
      return undefined;
    }
  }

  async set(device: StoredDevice): Promise<void> {
    await this.storage.set(this.key, JSON.stringify(device));
  }
}

/** The second share for an MFA login, from the given factor or the device. Throws MFA_* errors. */
async function secondShare(
  client: ServiceClient,
  device: DeviceShare,
  mfa: MfaSessionData,
  sessionId: string,
  input: MfaLoginInput,
  dappShare: string | undefined,
): Promise<{ share: KeyShare; factor: string }> {
  const invalid = (m: string) => new AuthError('MFA_FACTOR_INVALID', m);
  /** The service checks a typed factor: its share, or the service's reason (a wait: TOO_MANY_ATTEMPTS). */
  const checked = async (path: string, payload: unknown, factor: string, prefix = '') => {
    const res = await client.signedMfaCall<{ share?: KeyShare }>(path, sessionId, payload);
    if (res.status === 200 && res.body.share) return { share: res.body.share, factor };
    if (res.status === 429)
      throw new AuthError('TOO_MANY_ATTEMPTS', serviceError(res.body).message ?? 'Too many failed attempts');
    throw invalid(`${prefix}${errorText(res)}`);
  };
  // A typed factor (src/mfa-factors.ts): the service checks it and answers its share.
  const typed = typedFactorIn(input);
  if (typed) {
    const { step, value } = typed;
    if (!step.enabled(mfa)) throw invalid(step.missing);
    return checked(step.path, step.payload(value), step.name, step.refusal);
  }
  if (dappShare && mfa.dappIndex !== undefined) {
    try {
      return { share: mnemonicToShare(dappShare, mfa.dappIndex), factor: 'dapp' };
    } catch {
      throw invalid('Wrong dappShare');
    }
  }
  const stored = await device.get();
  if (!stored) {
    throw new AuthError(
      'MFA_REQUIRED',
      'This device has no MFA share: give a backup phrase, password or social backup',
    );
  }
  if (mfa.deviceRevoked) {
    throw new AuthError('MFA_REQUIRED', "This device's share was revoked: use another factor");
  }
  if (!mfa.deviceKey) {
    throw new AuthError(
      'MFA_REQUIRED',
      "This device's share is not known to the service: use another factor",
    );
  }
  try {
    return { share: openShareWithKey(stored.sealed, mfa.deviceKey), factor: 'device' };
  } catch {
    throw new AuthError('MFA_REQUIRED', "This device's share could not be opened: use another factor");
  }
}

/**
 * Rebuilds the key of a pending MFA session: the state with the keys, for `clientId`. Recovering
 * with another factor than the device's registers this device with a new share (unless
 * `newDeviceShare: false`).
 */
export async function rebuildKey(
  client: ServiceClient,
  device: DeviceShare,
  pending: PendingMfaSession,
  input: MfaLoginInput,
  clientId: string,
): Promise<AuthState> {
  const { payload, sessionId } = pending;
  const mfa = payload.mfa as MfaSessionData;
  const { share, factor } = await secondShare(client, device, mfa, sessionId, input, pending.dappShare);
  let coreKitKey: string;
  try {
    coreKitKey = await combineShares(mfa.serviceShare, share);
  } catch {
    throw new AuthError('MFA_FACTOR_INVALID', `The ${factor} share does not belong to this account`);
  }
  if (secp256k1PublicKey(coreKitKey) !== mfa.publicKey) {
    const what =
      factor === 'backup'
        ? 'Wrong backup phrase'
        : factor === 'dapp'
          ? 'Wrong dappShare'
          : `The ${factor} share does not belong to this account`;
    throw new AuthError('MFA_FACTOR_INVALID', what);
  }
  if (factor !== 'device' && input.newDeviceShare !== false && mfa.factors.includes('deviceShareFactor')) {
    const res = await client.signedMfaCall<{ deviceId?: string; index?: number; wrapKey?: string }>(
      '/api/mfa/device',
      sessionId,
      {},
      coreKitKey,
    );
    if (res.status === 200 && res.body.deviceId && res.body.index && res.body.wrapKey) {
      const deviceShare = await shareAt(mfa.serviceShare, share, res.body.index);
      await device.set({
        deviceId: res.body.deviceId,
        sealed: sealShareWithKey(deviceShare, res.body.wrapKey),
      });
    }
  }
  const privKey = getAppScopedKey(coreKitKey, clientId);
  const { mfa: _m, ...rest } = payload;
  return {
    ...rest,
    coreKitKey,
    coreKitEd25519PrivKey: getEd25519PrivKey(coreKitKey),
    privKey,
    ed25519PrivKey: getEd25519PrivKey(privKey),
    sessionId,
  };
}
