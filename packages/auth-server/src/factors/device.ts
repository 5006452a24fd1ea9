// The device factor: its share sealed (AES-GCM) under a per-device wrapping key the service keeps
// and releases in the sessions of that device; the sealed share lives in the app's storage.
import { bytesToHex, randomBytes } from '@noble/hashes/utils.js';
import { sealShareWithKey } from '@portico/auth/protocol';
import type { FactorModule } from './types.ts';

export const deviceFactor: FactorModule = {
  key: 'deviceShareFactor',
  seal(share, _input, record, out) {
    const deviceId = bytesToHex(randomBytes(16));
    const wrapKey = bytesToHex(randomBytes(32));
    record.devices[deviceId] = { index: share.index, wrapKey, addedAt: record.enabledAt };
    out.newDevice = { deviceId, sealed: sealShareWithKey(share, wrapKey), wrapKey };
  },
};
