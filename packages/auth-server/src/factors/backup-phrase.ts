// The backup-phrase factor: its share leaves the service once, as 24 words (BIP-39 encoding); the
// service keeps only its index, and checks a typed phrase by rebuilding the recorded key with its
// own share.
import { combineShares, mnemonicToShare, secp256k1PublicKey, shareToMnemonic } from '@portico/auth/protocol';
import { HttpError } from '../http.ts';
import type { FactorModule } from './types.ts';

export const backupPhraseFactor: FactorModule = {
  key: 'backUpShareFactor',
  seal(share, _input, record, out) {
    record.backupIndex = share.index;
    out.backupPhrase = shareToMnemonic(share);
  },
  check: {
    field: 'backupPhrase',
    auditName: 'backup phrase',
    ready(record) {
      if (record.backupIndex === undefined)
        throw new HttpError(400, 'MFA_FACTOR_NOT_SET_UP', 'No backup phrase is set up for this account');
    },
    async open(_ctx, record, value) {
      try {
        const share = mnemonicToShare(String(value), record.backupIndex!);
        if (secp256k1PublicKey(await combineShares(record.serviceShare, share)) === record.publicKey) {
          return { share };
        }
      } catch {}
      return { status: 401, message: 'Wrong backup phrase' };
    },
  },
};
