export {
  type AnsweredSignature,
  type ApprovalQueue,
  createApprovalQueue,
  type PendingApproval,
  type PendingConnection,
  type PendingSignature,
  type SignatureOutcome,
} from './approvals.ts';
export { WalletError, type WalletErrorKind } from './base-error.ts';
export {
  createEip155Chain,
  EIP155_NOTIFICATIONS,
  EIP155_READ_METHODS,
  EIP155_WALLET_METHODS,
  type Eip155Chain,
  type Eip155ChainOptions,
} from './chains/eip155.ts';
export {
  createSolanaChain,
  SOLANA_METHODS,
  type SolanaChainOptions,
  verifySolanaSignature,
} from './chains/solana.ts';
export {
  createKeyring,
  DEV_MNEMONIC,
  deriveAccounts,
  type Keyring,
  type KeyringNamespace,
  type NamespaceAccounts,
  type SolanaAccount,
  solanaAccountFromPrivateKey,
} from './keyring.ts';
export {
  accountsFromAuthKeys,
  type WalletAuthOptions,
  type WalletLoginParams,
  type WalletLoginStart,
  type WalletUser,
} from './login.ts';
export { createRpcClient, REQUEST_EXPIRED_CODE, type RpcClient, RpcError } from './rpc.ts';
export type { AccountView, BalanceView } from './server.ts';
export { describeEvmTransaction, describeTypedData } from './signing/eip155.ts';
export { describeMessage } from './signing/message.ts';
export { describeSolanaTransaction } from './signing/solana.ts';
export type {
  ConfirmSigning,
  KnownContract,
  SigningDetails,
  SigningField,
  SigningRequest,
} from './signing/types.ts';
export { deriveEd25519PrivateKey } from './slip10.ts';
export {
  AUTO_APPROVE_WARNING,
  type StartWalletOptions,
  startWallet,
  type Wallet,
  type WalletChainConfig,
  walletBannerLines,
  walletConfigOut,
} from './wallet.ts';
