import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import {
  decodeBase64Lenient,
  eciesDecrypt,
  eciesEncrypt,
  getAppScopedKey,
  getEd25519PrivKey,
  randomPrivKey,
  secp256k1PublicKey,
} from '../src/protocol.ts';

// The reference implementations, used only as test oracles (devDependencies).
const require = createRequire(import.meta.url);
const { subkey } = require('@toruslabs/openlogin-subkey') as { subkey(k: string, input: Buffer): string };
const { getED25519Key } = require('@toruslabs/openlogin-ed25519') as {
  getED25519Key(k: string): { sk: Buffer; pk: Buffer };
};
const eccrypto = require('@toruslabs/eccrypto') as {
  encrypt(
    pub: Buffer,
    msg: Buffer,
    opts?: { ephemPrivateKey?: Buffer; iv?: Buffer },
  ): Promise<{ iv: Buffer; ephemPublicKey: Buffer; ciphertext: Buffer; mac: Buffer }>;
  decrypt(
    priv: Buffer,
    opts: { iv: Buffer; ephemPublicKey: Buffer; ciphertext: Buffer; mac: Buffer },
  ): Promise<Buffer>;
};

/** Deterministic pseudo-random bytes so failures reproduce. */
function prng(seed: number): (n: number) => Uint8Array {
  let s = seed >>> 0;
  return (n) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 1) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      out[i] = s >>> 24;
    }
    return out;
  };
}

const rand = prng(7);
const KEYS = [
  '0000000000000000000000000000000000000000000000000000000000000001',
  'fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140',
  '00000000000000000000000000000000000000000000000000000000000000ff',
  '30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000000',
  ...Array.from({ length: 40 }, () => bytesToHex(rand(32))),
];
const CLIENT_IDS = [
  'BPi5PB_UiIZ-cPz1GtV5i1I2iOSOHuimiXBI0e-Oe_u6X3oVAbCiAZOTEBtTXw4tsluTITPqA8zMsfxIKMjiqNQ',
  'BHr_dKcxC0ecKn_2dZQmQeNdjPgWykMkcodEHkVvPMo71qzOV6SgtoN8KCvFdLN7bf34JOm89vWQMLFmSfIo84A',
  'portico-dev',
  'a',
  '',
  ...Array.from({ length: 20 }, () => Buffer.from(rand(1 + (rand(1)[0] % 64))).toString('base64url')),
];

describe('app-scoped key (MiMC-sponge) equals @toruslabs/openlogin-subkey', () => {
  it(`matches for ${KEYS.length} keys × ${CLIENT_IDS.length} clientIds`, () => {
    for (const key of KEYS) {
      for (const clientId of CLIENT_IDS) {
        const expected = subkey(key, Buffer.from(clientId, 'base64')).padStart(64, '0');
        assert.equal(
          getAppScopedKey(key, clientId),
          expected,
          `key ${key.slice(0, 8)}… clientId ${clientId}`,
        );
      }
    }
  });

  it('gives two apps different keys for one user', () => {
    assert.notEqual(getAppScopedKey(KEYS[5], CLIENT_IDS[0]), getAppScopedKey(KEYS[5], CLIENT_IDS[1]));
  });

  it('decodes clientIds like Buffer.from(s, "base64") for odd inputs', () => {
    for (const s of ['YQ==YQ==', 'a b=c', 'ab-_+/', '%%ab$$cd', 'QUJD\nREVG', ...CLIENT_IDS]) {
      assert.equal(bytesToHex(decodeBase64Lenient(s)), Buffer.from(s, 'base64').toString('hex'), s);
    }
  });
});

describe('ed25519 key equals @toruslabs/openlogin-ed25519', () => {
  it(`matches seed ‖ publicKey for ${KEYS.length} keys`, () => {
    for (const key of KEYS) {
      const got = getEd25519PrivKey(key);
      assert.equal(got.length, 128);
      assert.equal(got, getED25519Key(key).sk.toString('hex'));
    }
  });
});

describe('ECIES interoperates with eccrypto', () => {
  it('produces the same ciphertext as eccrypto for a fixed ephemeral key and IV', async () => {
    for (let i = 0; i < 10; i += 1) {
      const priv = randomPrivKey();
      const pub = hexToBytes(secp256k1PublicKey(priv, false));
      const ephem = hexToBytes(randomPrivKey());
      const iv = rand(16);
      const msg = utf8ToBytes(JSON.stringify({ i, text: 'session state ✓' }));
      const ours = eciesEncrypt(pub, msg, { ephemPrivateKey: ephem, iv });
      const theirs = await eccrypto.encrypt(Buffer.from(pub), Buffer.from(msg), {
        ephemPrivateKey: Buffer.from(ephem),
        iv: Buffer.from(iv),
      });
      assert.equal(ours.ciphertext, theirs.ciphertext.toString('hex'));
      assert.equal(ours.mac, theirs.mac.toString('hex'));
      assert.equal(ours.ephemPublicKey, theirs.ephemPublicKey.toString('hex'));
    }
  });

  it('decrypts what eccrypto encrypts and the other way round', async () => {
    for (let i = 0; i < 10; i += 1) {
      const priv = randomPrivKey();
      const pub = hexToBytes(secp256k1PublicKey(priv, false));
      const msg = utf8ToBytes(`message ${i}`);
      const theirs = await eccrypto.encrypt(Buffer.from(pub), Buffer.from(msg));
      const decrypted = eciesDecrypt(hexToBytes(priv), {
        iv: theirs.iv.toString('hex'),
        ephemPublicKey: theirs.ephemPublicKey.toString('hex'),
        ciphertext: theirs.ciphertext.toString('hex'),
        mac: theirs.mac.toString('hex'),
      });
      assert.equal(new TextDecoder().decode(decrypted), `message ${i}`);
      const ours = eciesEncrypt(pub, msg);
      const back = await eccrypto.decrypt(Buffer.from(hexToBytes(priv)), {
        iv: Buffer.from(ours.iv, 'hex'),
        ephemPublicKey: Buffer.from(ours.ephemPublicKey, 'hex'),
        ciphertext: Buffer.from(ours.ciphertext, 'hex'),
        mac: Buffer.from(ours.mac, 'hex'),
      });
      assert.equal(back.toString(), `message ${i}`);
    }
  });

  it('refuses a tampered ciphertext and the wrong key', () => {
    const priv = randomPrivKey();
    const payload = eciesEncrypt(hexToBytes(secp256k1PublicKey(priv, false)), utf8ToBytes('secret'));
    const flipped = {
      ...payload,
      ciphertext: (payload.ciphertext[0] === '0' ? '1' : '0') + payload.ciphertext.slice(1),
    };
    assert.throws(() => eciesDecrypt(hexToBytes(priv), flipped), /bad MAC/);
    assert.throws(() => eciesDecrypt(hexToBytes(randomPrivKey()), payload), /bad MAC/);
  });
});
