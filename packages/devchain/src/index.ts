export { DevchainError } from './base-error.ts';
export {
  ANVIL_VERSION,
  type Anvil,
  anvilBinaryPath,
  DEV_MNEMONIC,
  freePort,
  type StartAnvilParameters,
  startAnvil,
} from './evm/anvil.ts';
export { PorticoDemo } from './evm/contracts.generated.ts';
export { type EvmSeed, seedEvmChain, setBlockTime } from './evm/seed.ts';
export {
  createDevFaucet,
  DEFAULT_FAUCET_AMOUNTS,
  type DevFaucet,
  type DevFaucetChains,
  FaucetError,
  type FaucetErrorCode,
  type FaucetNamespace,
  type FundResult,
  formatFaucetAmount,
  fundEvm,
  fundSolana,
  namespaceOfAddress,
  parseFaucetAmount,
} from './faucet.ts';
export {
  createFaucetHandler,
  FAUCET_PATH,
  type FundResultJson,
  fundFromRequest,
  fundResultJson,
} from './faucet-http.ts';
export { benchSolanaLedger, type SolanaLedgerBench } from './solana/bench.ts';
export { type SolanaLedger, type StartSolanaLedgerOptions, startSolanaLedger } from './solana/index.ts';
export {
  type Lifetime as SolanaLifetime,
  signInstructions,
  signInstructionsBase64,
  transferInstruction,
} from './solana/sign.ts';
