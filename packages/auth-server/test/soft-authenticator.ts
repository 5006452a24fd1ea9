// A software WebAuthn authenticator for the service-level passkey tests. It stands in for a device
// (a phone, a laptop's platform authenticator, a security key): a P-256 key per credential
// (@noble/curves), authenticator data and the `none` attestation built here by hand from the
// WebAuthn spec (§6.1 authenticator data, §6.5.1 attested credential data, §8.7 `none`), with a
// small CBOR encoder of its own, so that nothing of the server library builds what it checks.
import { createHash, randomBytes } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [key: string]: Cbor };

/** RFC 8949 deterministic-enough CBOR: unsigned/negative integers, byte and text strings, arrays, maps. */
export function cbor(value: Cbor): Buffer {
  const head = (major: number, n: number): Buffer => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
    const b = Buffer.alloc(5);
    b[0] = (major << 5) | 26;
    b.writeUInt32BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (data: Uint8Array) => Buffer.from(data).toString('base64url');

interface Credential {
  id: Buffer;
  secretKey: Uint8Array;
  userHandle: string;
  counter: number;
}

/** What the test may bend in one ceremony, to see the service refuse it. */
export interface Bend {
  /** The origin the "browser" reports in clientDataJSON. */
  origin?: string;
  /** The challenge the authenticator signs (default: the one in the options). */
  challenge?: string;
  /** The RP ID whose hash goes in the authenticator data. */
  rpId?: string;
  /** A counter to report (e.g. one that goes back: a cloned authenticator). */
  counter?: number;
  /** User verified (UV flag); default true. */
  userVerified?: boolean;
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  constructor(
    private readonly rpId: string,
    private readonly origin: string,
  ) {}

  /** `navigator.credentials.create` with the service's options: the RegistrationResponseJSON. */
  create(options: { challenge: string; user: { id: string } }, bend: Bend = {}) {
    const secretKey = p256.utils.randomSecretKey();
    const point = p256.getPublicKey(secretKey, false); // 04 || x || y
    const id = randomBytes(32);
    const cred: Credential = { id, secretKey, userHandle: options.user.id, counter: 0 };
    this.credentials.push(cred);
    // COSE_Key (RFC 9053): kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    const coseKey = cbor(
      new Map<Cbor, Cbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, point.slice(1, 33)],
        [-3, point.slice(33, 65)],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([
      this.authDataHead(bend, 0x40, 0),
      Buffer.alloc(16), // AAGUID: none
      idLength,
      id,
      coseKey,
    ]);
    const clientDataJSON = this.clientData('webauthn.create', options.challenge, bend);
    const attestationObject = cbor({ fmt: 'none', attStmt: {}, authData });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** `navigator.credentials.get`: the AuthenticationResponseJSON of `cred` (default: the last made). */
  get(options: { challenge: string }, bend: Bend = {}, cred = this.credentials.at(-1)!) {
    cred.counter = bend.counter ?? cred.counter + 1;
    const authData = this.authDataHead(bend, 0, cred.counter);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, bend);
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    // ECDSA over SHA-256 of authenticatorData || SHA-256(clientDataJSON), DER-encoded (§6.3.3, §8.2 of WebAuthn).
    const signature = p256.sign(signed, cred.secretKey, { format: 'der' });
    return {
      id: b64url(cred.id),
      rawId: b64url(cred.id),
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: cred.userHandle,
      },
    };
  }

  /** rpIdHash, flags (UP, UV and `extra`), signCount. */
  private authDataHead(bend: Bend, extra: number, counter: number): Buffer {
    const flags = 0x01 | (bend.userVerified === false ? 0 : 0x04) | extra;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([sha256(bend.rpId ?? this.rpId), Buffer.from([flags]), count]);
  }

  private clientData(type: string, challenge: string, bend: Bend): Buffer {
    return Buffer.from(
      JSON.stringify({
        type,
        challenge: bend.challenge ?? challenge,
        origin: bend.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
  }
}
