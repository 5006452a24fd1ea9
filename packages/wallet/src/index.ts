export { APPROVAL_PAGE } from './approval-page.ts';
export { type ApprovalQueue, createApprovalQueue, type PendingApproval } from './approvals.ts';
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
export { createKeyring, DEV_MNEMONIC, type Keyring, type SolanaAccount } from './keyring.ts';
export { createRpcClient, type RpcClient, RpcError } from './rpc.ts';
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
