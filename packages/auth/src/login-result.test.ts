import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeB64Params, decodeB64Value, encodeB64Params } from './login-result.ts';

describe('b64Params', () => {
  it('round-trips UTF-8 JSON as base64url without padding', () => {
    const value = { sessionId: 'ab', name: 'Zoë 🦊', list: [1, null] };
    const encoded = encodeB64Params(value);
    assert.match(encoded, /^[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeB64Value(encoded), value);
  });

  it('reads b64Params from the fragment of a URL, and nothing from a URL without it', () => {
    const encoded = encodeB64Params({ state: 's' });
    assert.deepEqual(decodeB64Params(`https://app.example/cb#b64Params=${encoded}`), { state: 's' });
    assert.equal(decodeB64Params('https://app.example/cb#other=1'), undefined);
  });

  it('answers undefined for a value that is not base64url JSON', () => {
    assert.equal(decodeB64Value('%%%'), undefined);
    assert.equal(decodeB64Value(Buffer.from('not json').toString('base64url')), undefined);
  });
});
