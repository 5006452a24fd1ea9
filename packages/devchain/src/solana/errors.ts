/**
 * JSON-RPC errors in the codes and texts the Solana RPC (agave) uses, and the conversion of
 * LiteSVM's transaction errors into the JSON shape the Solana RPC gives them
 * (`"AccountNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`, ...).
 */
import {
  type FailedTransactionMetadata,
  InstructionErrorBorshIo,
  InstructionErrorCustom,
  TransactionErrorDuplicateInstruction,
  TransactionErrorInstructionError,
  TransactionErrorInsufficientFundsForRent,
  TransactionErrorProgramExecutionTemporarilyRestricted,
} from 'litesvm/dist/internal.js';
import { DevchainError } from '../base-error.ts';

/** The JSON-RPC errors the dev chain answers, by stable code, with agave's numbers. */
export const SOLANA_RPC_ERRORS = {
  invalid_request: -32600,
  method_not_found: -32601,
  invalid_params: -32602,
  internal: -32603,
  /** agave's `SendTransactionPreflightFailure`. */
  preflight_failure: -32002,
  /** agave's `TransactionSignatureVerificationFailure`. */
  signature_failure: -32003,
  /** agave's `UnsupportedTransactionVersion`. */
  unsupported_transaction_version: -32015,
  /** agave's `MinContextSlotNotReached`. */
  min_context_slot_not_reached: -32016,
} as const;

export type SolanaRpcErrorCode = keyof typeof SOLANA_RPC_ERRORS;

/** A JSON-RPC error of the dev chain's Solana RPC: `code` its stable name, `rpcCode` agave's number. */
export class RpcError extends DevchainError {
  override readonly name: string = 'RpcError';
  declare readonly code: SolanaRpcErrorCode;
  constructor(
    code: SolanaRpcErrorCode,
    message: string,
    readonly data?: unknown,
  ) {
    super(code, message);
  }

  get rpcCode(): number {
    return SOLANA_RPC_ERRORS[this.code];
  }
}

/** -32602, the code agave uses for every parameter it refuses. */
export function invalidParams(message: string): RpcError {
  return new RpcError('invalid_params', message);
}

/** -32016 with `{contextSlot}`, as agave's `MinContextSlotNotReached`. */
export function minContextSlotNotReached(contextSlot: number): RpcError {
  return new RpcError('min_context_slot_not_reached', 'Minimum context slot has not been reached', {
    contextSlot,
  });
}

/** A transaction error as the Solana RPC serialises it. */
export type TransactionErrorJson = string | { [variant: string]: unknown };

// Variant order of agave's `TransactionError` (fieldless ones, numbered as LiteSVM numbers them).
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
];

// Variant order of agave's `InstructionError` (fieldless ones, numbered as LiteSVM numbers them).
const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
];

type LiteSvmTransactionError = ReturnType<FailedTransactionMetadata['err']>;

function instructionErrorJson(err: ReturnType<TransactionErrorInstructionError['err']>): unknown {
  if (typeof err === 'number') return INSTRUCTION_ERRORS[err] ?? `InstructionError${err}`;
  if (err instanceof InstructionErrorCustom) return { Custom: err.code };
  if (err instanceof InstructionErrorBorshIo) return { BorshIoError: err.msg };
  return 'InvalidError';
}

/** LiteSVM's error object → the Solana RPC's JSON form of `TransactionError`. */
export function transactionErrorJson(err: LiteSvmTransactionError): TransactionErrorJson {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? `TransactionError${err}`;
  if (err instanceof TransactionErrorInstructionError) {
    return { InstructionError: [err.index, instructionErrorJson(err.err())] };
  }
  if (err instanceof TransactionErrorDuplicateInstruction) return { DuplicateInstruction: err.index };
  if (err instanceof TransactionErrorInsufficientFundsForRent) {
    return { InsufficientFundsForRent: { account_index: err.accountIndex } };
  }
  if (err instanceof TransactionErrorProgramExecutionTemporarilyRestricted) {
    return { ProgramExecutionTemporarilyRestricted: { account_index: err.accountIndex } };
  }
  return 'SanitizeFailure';
}

/**
 * Whether a cluster would put a transaction failing with this error into a block (fee charged,
 * `err` recorded). Errors found before execution (bad blockhash, signature, fee payer) drop it.
 */
export function isCommittedError(err: TransactionErrorJson): boolean {
  if (typeof err === 'string') return err === 'InvalidRentPayingAccount' || err === 'UnbalancedTransaction';
  return (
    'InstructionError' in err ||
    'InsufficientFundsForRent' in err ||
    'ProgramExecutionTemporarilyRestricted' in err
  );
}

const INSTRUCTION_ERROR_TEXT: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  UnsupportedProgramId: 'Unsupported program id',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  PrivilegeEscalation: 'Cross-program invocation with unauthorized signer or writable account',
  InvalidAccountOwner: 'Invalid account owner',
  ArithmeticOverflow: 'Program arithmetic overflowed',
};

const TRANSACTION_ERROR_TEXT: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  SignatureFailure: 'Transaction did not pass signature verification',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  InvalidProgramForExecution: 'Attempt to load a program that does not exist',
  UnsupportedVersion: 'Transaction version is unsupported',
};

/** Human text of a transaction error, as agave's `Display` writes it (common variants). */
export function describeTransactionError(err: TransactionErrorJson): string {
  if (typeof err === 'string') return TRANSACTION_ERROR_TEXT[err] ?? err;
  if ('InstructionError' in err) {
    const [index, inner] = err.InstructionError as [number, unknown];
    let text: string;
    if (typeof inner === 'string') text = INSTRUCTION_ERROR_TEXT[inner] ?? inner;
    else if (inner && typeof inner === 'object' && 'Custom' in inner) {
      text = `custom program error: 0x${Number((inner as { Custom: number }).Custom).toString(16)}`;
    } else text = JSON.stringify(inner);
    return `Error processing Instruction ${index}: ${text}`;
  }
  if ('InsufficientFundsForRent' in err) {
    const { account_index } = err.InsufficientFundsForRent as { account_index: number };
    return `Transaction results in an account (${account_index}) with insufficient funds for rent`;
  }
  return JSON.stringify(err);
}
