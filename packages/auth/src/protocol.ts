// `@portico/auth/protocol`: what the auth service shares with the library (the sealed request and
// session formats, the app-scoped keys, the MFA shares, the factor order), for the service and for
// tools that speak its protocol. Apps import `@portico/auth`; nothing here is needed to log in.
export {
  decryptJson,
  type EciesOptions,
  type EciesPayload,
  eciesDecrypt,
  eciesEncrypt,
  encryptJsonTo,
  mfaProofMessage,
  signStoreMessage,
  storeKeyOf,
  verifyStoreMessage,
} from './ecies.ts';
export {
  decodeBase64Lenient,
  ed25519PublicKey,
  getAppScopedKey,
  getEd25519PrivKey,
  mimcSpongeHash,
  randomPrivKey,
  SECP256K1_N,
  secp256k1PublicKey,
} from './keys.ts';
export {
  combineShares,
  type KeyShare,
  mnemonicToShare,
  openShareWithKey,
  openShareWithPassword,
  SHARE_THRESHOLD,
  sealShareWithKey,
  sealShareWithPassword,
  shareAt,
  shareToMnemonic,
  splitKey,
} from './mfa.ts';
export { checkSetupChoice, mfaPrompt, setupOrder } from './mfa-rules.ts';
export { ownValue, setOwn } from './own.ts';
