/** Transaction methods: sendTransaction, simulateTransaction, getTransaction, getSignatureStatuses. */
import { getBase58Decoder } from '@solana/kit';
import { invalidParams, RpcError } from '../errors.ts';
import { encodeReturnData } from '../ledger.ts';
import type { StoredTransaction } from '../store.ts';
import { decodeTransaction } from '../transaction.ts';
import { encodeAccount } from './accounts.ts';
import {
  atLeastConfirmed,
  booleanOf,
  commitmentOf,
  configAt,
  contextSlot,
  parsePubkey,
  parseSignature,
  stringAt,
  wireAt,
  withContext,
} from './params.ts';
import type { Handler } from './types.ts';

const base58 = getBase58Decoder();
const MAX_SIGNATURE_STATUSES = 256;

export const sendTransaction: Handler = (ledger, params) => {
  const config = configAt(params, 1);
  const wire = wireAt(params, config);
  contextSlot(ledger, { commitment: config.preflightCommitment, minContextSlot: config.minContextSlot });
  return ledger.submit(wire, { skipPreflight: booleanOf(config, 'skipPreflight', false) });
};

export const simulateTransaction: Handler = (ledger, params) => {
  const config = configAt(params, 1);
  const wire = wireAt(params, config);
  const sigVerify = booleanOf(config, 'sigVerify', false);
  const replaceRecentBlockhash = booleanOf(config, 'replaceRecentBlockhash', false);
  if (sigVerify && replaceRecentBlockhash) {
    throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
  }
  const { commitment, slot } = contextSlot(ledger, config);
  const simulation = ledger.simulate(wire, { sigVerify, replaceRecentBlockhash });
  let accounts: unknown = null;
  const accountsConfig = config.accounts as { addresses?: unknown; encoding?: unknown } | undefined | null;
  if (accountsConfig && typeof accountsConfig === 'object') {
    if (!Array.isArray(accountsConfig.addresses))
      throw invalidParams('Invalid params: accounts.addresses must be an array.');
    const post = simulation.err === null ? simulation.postAccounts() : new Map();
    accounts = accountsConfig.addresses.map((text: unknown) => {
      const key = parsePubkey(String(text));
      const account = simulation.err === null ? (post.get(key) ?? ledger.getAccount(key)) : null;
      return account ? encodeAccount(account, accountsConfig.encoding ?? 'base64') : null;
    });
  }
  return withContext(slot, {
    err: simulation.err,
    logs: simulation.logs,
    accounts,
    unitsConsumed: simulation.unitsConsumed,
    returnData: encodeReturnData(simulation.returnData),
    innerInstructions: null,
    replacementBlockhash: replaceRecentBlockhash ? blockhashOf(ledger, commitment) : null,
  });
};

function blockhashOf(ledger: Parameters<Handler>[0], commitment: ReturnType<typeof commitmentOf>) {
  const { blockhash, lastValidBlockHeight } = ledger.latestBlockhash(commitment);
  return { blockhash, lastValidBlockHeight };
}

function transactionJson(stored: StoredTransaction, encoding: unknown): unknown {
  if (encoding === 'base64') return [Buffer.from(stored.wire).toString('base64'), 'base64'];
  if (encoding === 'base58') return [base58.decode(stored.wire), 'base58'];
  const tx = decodeTransaction(stored.wire);
  return {
    signatures: tx.signatures,
    message: {
      accountKeys: tx.accountKeys,
      header: tx.header,
      recentBlockhash: tx.recentBlockhash,
      instructions: tx.instructions.map((ix) => ({
        programIdIndex: ix.programIdIndex,
        accounts: ix.accounts,
        data: base58.decode(ix.data),
        stackHeight: null,
      })),
      ...(tx.version === 0 ? { addressTableLookups: tx.addressTableLookups } : {}),
    },
  };
}

export const getTransaction: Handler = (ledger, params) => {
  const signature = parseSignature(stringAt(params, 0, 'signature'));
  const config = configAt(params, 1);
  const encoding = config.encoding ?? 'json';
  if (!['json', 'jsonParsed', 'base64', 'base58', 'binary'].includes(String(encoding))) {
    throw invalidParams(
      `Invalid params: unknown variant \`${String(encoding)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\`.`,
    );
  }
  const commitment = commitmentOf(config);
  atLeastConfirmed(commitment);
  const maxVersion = config.maxSupportedTransactionVersion;
  if (maxVersion !== undefined && maxVersion !== null && maxVersion !== 0) {
    throw invalidParams('Invalid params: maxSupportedTransactionVersion must be 0.');
  }
  const stored = ledger.getTransaction(signature, commitment);
  if (!stored) return null;
  const version = decodeTransaction(stored.wire).version;
  if (version === 0 && (maxVersion === undefined || maxVersion === null)) {
    throw new RpcError(
      'unsupported_transaction_version',
      'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const meta = stored.meta;
  return {
    slot: stored.slot,
    blockTime: stored.blockTime,
    transaction: transactionJson(stored, encoding === 'binary' ? 'base58' : encoding),
    meta: {
      err: stored.err,
      status: stored.err === null ? { Ok: null } : { Err: stored.err },
      fee: BigInt(meta.fee),
      preBalances: meta.preBalances.map(BigInt),
      postBalances: meta.postBalances.map(BigInt),
      innerInstructions: [],
      logMessages: meta.logMessages,
      preTokenBalances: [],
      postTokenBalances: [],
      rewards: [],
      loadedAddresses: { writable: [], readonly: [] },
      computeUnitsConsumed: BigInt(meta.computeUnitsConsumed),
    },
    ...(maxVersion === undefined || maxVersion === null ? {} : { version }),
  };
};

export const getSignatureStatuses: Handler = (ledger, params) => {
  const signatures = params[0];
  if (!Array.isArray(signatures))
    throw invalidParams('Invalid params: invalid type: expected a sequence of signatures.');
  if (signatures.length > MAX_SIGNATURE_STATUSES) {
    throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
  }
  configAt(params, 1);
  const parsed = signatures.map((s: unknown) => parseSignature(String(s)));
  const processed = ledger.slotAt('processed');
  const finalized = ledger.slotAt('finalized');
  return withContext(
    processed,
    parsed.map((signature) => {
      const stored = ledger.getTransaction(signature, 'processed');
      if (!stored) return null;
      return {
        slot: stored.slot,
        confirmations: stored.slot <= finalized ? null : processed - stored.slot,
        err: stored.err,
        status: stored.err === null ? { Ok: null } : { Err: stored.err },
        confirmationStatus: ledger.confirmationStatus(stored.slot),
      };
    }),
  );
};
