import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Curve, Network } from '@portico/auth';
import {
  ed25519PublicKey,
  getAppScopedKey,
  getEd25519PrivKey,
  randomPrivKey,
  secp256k1PublicKey,
} from '@portico/auth/protocol';
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from 'jose';
import type { Envelope } from './envelope.ts';
import type { AuthStore } from './store.ts';

/** The four keys of a login. */
export interface DerivedKeys {
  coreKitKey: string;
  coreKitEd25519PrivKey: string;
  privKey: string;
  ed25519PrivKey: string;
}

/** What else a user's key depends on besides (verifier, verifierId). */
export interface KeyScope {
  /** The claim the verifier id came from, when it is not the verifier's own verifierIdField. */
  claim?: string;
  /** The app's `network`, unless it is the service's legacy network. */
  network?: string;
}

/**
 * The network whose users keep the keys made before keys were separated by network (until then one
 * key served every network). The v7 production network: the keys that hold value are production
 * keys; an operator whose apps used another network sets `legacyNetwork`.
 */
export const DEFAULT_LEGACY_NETWORK: Network = 'sapphire_mainnet';

/** coreKitKeys per (verifier, verifierId, scope): created on first login, enveloped at rest. */
export class KeyService {
  constructor(
    private readonly store: AuthStore,
    private readonly envelope: Envelope,
    readonly legacyNetwork: Network = DEFAULT_LEGACY_NETWORK,
  ) {}

  /** The scope of a login on `network` (through `claim`, when not the verifier's own field). */
  scope(network: string, claim?: string): KeyScope {
    return { claim, network: network === this.legacyNetwork ? undefined : network };
  }

  /**
   * Lookup id: a hash, so the table holds no email addresses or subject ids. With an empty scope
   * (the legacy network, the verifier's own claim) it is the id keys have always had, so existing
   * users keep their keys; every other network gets keys of its own, unrelated to these.
   */
  static idOf(verifier: string, verifierId: string, scope: KeyScope = {}): string {
    const parts: unknown[] = ['portico-core-key', verifier, verifierId];
    if (scope.claim !== undefined) parts.push({ claim: scope.claim });
    if (scope.network !== undefined) parts.push({ network: scope.network });
    return bytesToHex(sha256(utf8ToBytes(JSON.stringify(parts))));
  }

  async coreKitKey(verifier: string, verifierId: string, scope: KeyScope = {}): Promise<string> {
    const id = KeyService.idOf(verifier, verifierId, scope);
    let sealed = await this.store.getCoreKey(id);
    if (!sealed) {
      const fresh = randomPrivKey();
      sealed = await this.store.putCoreKeyIfAbsent(id, this.envelope.seal(id, hexToBytes(fresh)), Date.now());
    }
    return bytesToHex(this.envelope.open(id, sealed));
  }

  async keysFor(
    verifier: string,
    verifierId: string,
    clientId: string,
    scope: KeyScope = {},
  ): Promise<DerivedKeys> {
    const coreKitKey = await this.coreKitKey(verifier, verifierId, scope);
    const privKey = getAppScopedKey(coreKitKey, clientId);
    return {
      coreKitKey,
      coreKitEd25519PrivKey: getEd25519PrivKey(coreKitKey),
      privKey,
      ed25519PrivKey: getEd25519PrivKey(privKey),
    };
  }
}

export interface Wallet {
  public_key: string;
  type: 'web3auth_app_key' | 'web3auth_threshold_key';
  curve: Curve;
}

/** The idToken's `wallets`: app key and threshold (core kit) key, public keys on the requested curve. */
export function walletsFor(keys: DerivedKeys, curve: Curve): Wallet[] {
  const pub = (secp: string, ed: string) =>
    curve === 'ed25519' ? ed25519PublicKey(ed) : secp256k1PublicKey(secp);
  return [
    { public_key: pub(keys.privKey, keys.ed25519PrivKey), type: 'web3auth_app_key', curve },
    { public_key: pub(keys.coreKitKey, keys.coreKitEd25519PrivKey), type: 'web3auth_threshold_key', curve },
  ];
}

/** The service's ES256 signing key for idTokens, enveloped in the store, and its public JWKS. */
export class TokenSigner {
  private constructor(
    private readonly privateJwk: JWK,
    readonly publicJwk: JWK,
    readonly issuer: string,
  ) {}

  static async load(store: AuthStore, envelope: Envelope, issuer: string): Promise<TokenSigner> {
    const name = 'idtoken-signing-key';
    let sealed = await store.getValue(name);
    if (!sealed) {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true });
      const jwk = await exportJWK(privateKey);
      jwk.kid = bytesToHex(sha256(utf8ToBytes(`${jwk.x}.${jwk.y}`))).slice(0, 16);
      sealed = await store.putValueIfAbsent(name, envelope.seal(name, utf8ToBytes(JSON.stringify(jwk))));
    }
    const jwk = JSON.parse(new TextDecoder().decode(envelope.open(name, sealed))) as JWK;
    const { d: _d, ...pub } = jwk;
    return new TokenSigner(jwk, { ...pub, alg: 'ES256', use: 'sig' }, issuer);
  }

  get jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  async sign(claims: Record<string, unknown>, audience: string, expiresInSeconds: number): Promise<string> {
    const key = await importJWK(this.privateJwk, 'ES256');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: this.privateJwk.kid, typ: 'JWT' })
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt()
      .setExpirationTime(`${expiresInSeconds}s`)
      .sign(key);
  }
}
