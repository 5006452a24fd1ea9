// MFA on the service: the user's MFA record (service share + public bookkeeping), setup (the one
// moment the service still holds the whole coreKitKey: it splits it, hands the factors out and
// deletes the key), the device registry (wrapping keys, revocation) and the social-backup release.
import { bytesToHex, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { MfaFactor, MfaSessionData } from '@portico/auth';
import {
  ed25519PublicKey,
  getAppScopedKey,
  getEd25519PrivKey,
  type KeyShare,
  ownValue,
  secp256k1PublicKey,
  shareToMnemonic,
  splitKey,
} from '@portico/auth/protocol';
import type { AuthenticatorSecret } from './authenticator.ts';
import type { Envelope } from './envelope.ts';
import type { AuthStore } from './store.ts';

/** A passkey as the MFA record keeps it (the COSE public key base64url). */
export interface PasskeyCredential {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
}

export interface MfaDevice {
  index: number;
  /** Wraps the device's share at rest in the client's storage; deleted on revocation. */
  wrapKey?: string;
  revoked?: true;
  /** When the share was made (ms); absent in records older than it. */
  addedAt?: number;
  /** When it was revoked (ms); absent in records older than it. */
  revokedAt?: number;
}

/** Per user, enveloped under `mfa:<userId>`. Holds exactly one share of the key (two with social backup). */
/** What setup needs of a factor module (the registry's FactorModule extends it). */
export interface SealingFactor {
  /** Setup: keeps the factor's share in the record (sealed as the factor needs) or hands it out once in `out`. */
  seal(share: KeyShare, input: SetupInput, record: MfaRecord, out: SetupOutput): Promise<void> | void;
  /** Setup, after the record is saved (bindings the factor keeps outside the record). */
  saved?(
    ctx: { bindSocial(socialId: string, userId: string): Promise<void> },
    userId: string,
    record: MfaRecord,
  ): Promise<void>;
}

export interface MfaRecord {
  v: 1;
  enabledAt: number;
  keyVerifier: string;
  factors: MfaFactor[];
  serviceShare: KeyShare;
  publicKey: string;
  edPublicKey: string;
  /** App key public keys by clientId, for the idToken's wallets (known for apps that logged in before). */
  appKeys: Record<string, { secp: string; ed: string }>;
  backupIndex?: number;
  dappIndex?: number;
  passwordShare?: string;
  social?: { verifier: string; id: string; share: KeyShare };
  /** The authenticator app's secret and the share a right code releases. */
  authenticator?: AuthenticatorSecret & { share: KeyShare };
  /**
   * The passkey factor's credential and the share a passkey answer releases; `lastUsedAt`, the last
   * answer that passed (absent until one did, and in records older than it).
   */
  passkey?: PasskeyCredential & { share: KeyShare; lastUsedAt?: number };
  devices: Record<string, MfaDevice>;
  /** Every x-coordinate ever handed out (new device shares never reuse one). */
  usedIndices: number[];
}

export interface SetupInput {
  factors: MfaFactor[];
  password?: string;
  /** The second login for the social-backup factor, already verified: its verifier and id. */
  social?: { verifier: string; id: string };
  /** The authenticator secret the user confirmed with a code at setup, and that code's time step. */
  authenticator?: AuthenticatorSecret;
  /** The passkey made on the setup screen, verified. */
  passkey?: PasskeyCredential;
  /** Custom (JWT) verifiers get a dappShare. */
  dappShare: boolean;
  clientId: string;
}

export interface SetupOutput {
  record: MfaRecord;
  backupPhrase?: string;
  dappShare?: string;
  newDevice?: { deviceId: string; sealed: string; wrapKey: string };
}

export class MfaStore {
  constructor(
    private readonly store: AuthStore,
    private readonly envelope: Envelope,
    /** The service's clock (ms): when MFA was enabled, a device added or revoked. */
    private readonly now: () => number = Date.now,
  ) {}

  async load(userId: string): Promise<MfaRecord | undefined> {
    const name = `mfa:${userId}`;
    const sealed = await this.store.getValue(name);
    return sealed ? this.open(name, sealed) : undefined;
  }

  /**
   * Changes the user's record with `change`, compare-and-set: when another change landed in
   * between (a device added on one instance while another is revoked on a second), the record is
   * read again and `change` applied to it, so neither is lost. `change` answers what to return and
   * whether to write; without a record it is not called.
   */
  private async update<T>(
    userId: string,
    change: (record: MfaRecord) => { result: T; write: boolean },
  ): Promise<T | undefined> {
    const name = `mfa:${userId}`;
    for (;;) {
      const sealed = await this.store.getValue(name);
      if (!sealed) return undefined;
      const record = this.open(name, sealed);
      const { result, write } = change(record);
      if (!write || (await this.store.replaceValue(name, sealed, this.sealRecord(name, record))))
        return result;
    }
  }

  /**
   * A passkey factor's answer counted `next` (its signature counter): recorded when it moves past
   * the recorded counter, compare-and-set on the sealed record so that two checks with one counter
   * cannot both pass. False when it does not move on (a cloned authenticator, or a check that came
   * first); 0 after 0 passes (an authenticator that does not count). Another change of the record
   * in between (a device added) is read again. A passing answer is recorded as used `at`.
   */
  async advancePasskeyCounter(userId: string, next: number, at: number): Promise<boolean> {
    const advanced = await this.update(userId, (record) => {
      if (!record.passkey) return { result: false, write: false };
      const uncounted = next === 0 && record.passkey.counter === 0;
      if (!uncounted && next <= record.passkey.counter) return { result: false, write: false };
      record.passkey.counter = next;
      record.passkey.lastUsedAt = at;
      return { result: true, write: true };
    });
    return advanced ?? false;
  }

  private open(name: string, sealed: string): MfaRecord {
    return JSON.parse(new TextDecoder().decode(this.envelope.open(name, sealed))) as MfaRecord;
  }

  private sealRecord(name: string, record: MfaRecord): string {
    return this.envelope.seal(name, utf8ToBytes(JSON.stringify(record)));
  }

  /** Counts a login of a user without MFA; returns the count including this one. */
  async countLogin(userId: string): Promise<number> {
    const name = `mfa-logins:${userId}`;
    const count = Number((await this.store.getValue(name)) ?? '0') + 1;
    await this.store.setValue(name, String(count));
    return count;
  }

  /** Binds a social-backup identity (a second verifier's user) to the user it recovers. */
  async bindSocial(socialId: string, userId: string): Promise<void> {
    await this.store.setValue(`mfa-social:${socialId}`, userId);
  }

  async socialOwner(socialId: string): Promise<string | undefined> {
    return this.store.getValue(`mfa-social:${socialId}`);
  }

  /**
   * Enables MFA: splits the key 2-of-n (one share per chosen factor plus the service's), seals the
   * password share, wraps the device share, and deletes the whole key from the store. Returns the
   * shares that leave the service (backup phrase, dappShare, the device's sealed share) exactly once.
   */
  /** `factors`: the factor modules (src/factors/), handed in so that this file depends on none. */
  async enable(
    userId: string,
    coreKitKey: string,
    keyVerifier: string,
    input: SetupInput,
    factors: Readonly<Record<MfaFactor, SealingFactor>>,
  ): Promise<SetupOutput> {
    if (await this.load(userId)) throw new Error('MFA is already enabled for this user');
    const roles: Array<MfaFactor | 'service' | 'dapp'> = ['service', ...input.factors];
    if (input.dappShare) roles.push('dapp');
    const shares = await splitKey(coreKitKey, roles.length);
    const shareOf = (role: string) => shares[roles.indexOf(role as MfaFactor)];
    const appKey = getAppScopedKey(coreKitKey, input.clientId);
    const record: MfaRecord = {
      v: 1,
      enabledAt: this.now(),
      keyVerifier,
      factors: input.factors,
      serviceShare: shareOf('service'),
      publicKey: secp256k1PublicKey(coreKitKey),
      edPublicKey: ed25519PublicKey(getEd25519PrivKey(coreKitKey)),
      appKeys: {
        [input.clientId]: {
          secp: secp256k1PublicKey(appKey),
          ed: ed25519PublicKey(getEd25519PrivKey(appKey)),
        },
      },
      devices: {},
      usedIndices: shares.map((s) => s.index),
    };
    const out: SetupOutput = { record };
    // Each factor keeps its share as its module says (src/factors/).
    for (const factor of input.factors) await factors[factor].seal(shareOf(factor), input, record, out);
    if (input.dappShare) {
      const s = shareOf('dapp');
      record.dappIndex = s.index;
      out.dappShare = shareToMnemonic(s);
    }
    // Insert-if-absent: of two set-ups at once (two tabs, two instances) one wins; the other's
    // shares belong to a split nobody keeps, so it must fail rather than overwrite.
    const name = `mfa:${userId}`;
    const sealed = this.sealRecord(name, record);
    if ((await this.store.putValueIfAbsent(name, sealed)) !== sealed) {
      throw new Error('MFA is already enabled for this user');
    }
    for (const factor of input.factors) await factors[factor].saved?.(this, userId, record);
    await this.store.deleteCoreKey(userId);
    return out;
  }

  /** A new device: a fresh unused index and wrapping key; the client computes and seals its share. */
  async addDevice(userId: string): Promise<{ deviceId: string; index: number; wrapKey: string }> {
    const deviceId = bytesToHex(randomBytes(16));
    const wrapKey = bytesToHex(randomBytes(32));
    const addedAt = this.now();
    const index = await this.update(userId, (record) => {
      if (!record.factors.includes('deviceShareFactor')) throw new Error('The device factor is not set up');
      const used = new Set(record.usedIndices);
      let index = 0;
      while (index === 0 || used.has(index)) index = randomBytes(1)[0];
      record.devices[deviceId] = { index, wrapKey, addedAt };
      record.usedIndices.push(index);
      return { result: index, write: true };
    });
    if (index === undefined) throw new Error('MFA is not enabled for this user');
    return { deviceId, index, wrapKey };
  }

  /** Revokes a device: its wrapping key is deleted, so the share in its storage can never be opened again. */
  async revokeDevice(userId: string, deviceId: string): Promise<boolean> {
    const revokedAt = this.now();
    const revoked = await this.update(userId, (record) => {
      const device = ownValue(record.devices, deviceId);
      if (!device || device.revoked) return { result: false, write: false };
      const { index, addedAt } = device;
      record.devices[deviceId] = { index, revoked: true, addedAt, revokedAt };
      return { result: true, write: true };
    });
    return revoked ?? false;
  }
}

/** The session's MFA part for a login by a user with MFA on. */
export function sessionMfa(record: MfaRecord, deviceId: string | undefined): MfaSessionData {
  const device = deviceId ? ownValue(record.devices, deviceId) : undefined;
  return {
    serviceShare: record.serviceShare,
    publicKey: record.publicKey,
    factors: record.factors,
    backupIndex: record.backupIndex,
    dappIndex: record.dappIndex,
    // The sealed password share stays here: with it a session could test guesses offline.
    // The password is checked by `/api/mfa/factor`, under the attempt limits.
    deviceKey: device?.wrapKey,
    deviceRevoked: device?.revoked,
  };
}
