import { isPlainObject } from '@metamask/utils';
import { ed25519 } from '@noble/curves/ed25519';
import type { InvokeContext, InvokeRequest, Json } from '@portico/multichain';
import { base58, base64 } from '@scure/base';
import { type Address, getTransactionDecoder, getTransactionEncoder, type SignatureBytes } from '@solana/kit';
import type { Keyring, SolanaAccount } from '../keyring.ts';
import { createRpcClient, RpcError } from '../rpc.ts';
import { describeMessage } from '../signing/message.ts';
import { parseSignInInput, signInMessageText, signInWarnings } from '../signing/sign-in.ts';
import { describeSolanaTransaction, formatSol } from '../signing/solana.ts';
import type { ConfirmSigning, SigningDetails, SigningField } from '../signing/types.ts';

/** The Solana methods of MetaMask's Multichain API flavour. */
export const SOLANA_METHODS = [
  'signMessage',
  'signTransaction',
  'signAndSendTransaction',
  'signAllTransactions',
  'signIn',
];

/** signAllTransactions signs at most this many transactions in one approval. */
const MAX_TRANSACTIONS = 20;

export type SolanaChainOptions = {
  /** CAIP-2 id, `solana:<first 32 characters of the genesis hash>`. */
  chainId: string;
  /** HTTP JSON-RPC URL used to broadcast (signAndSendTransaction). */
  rpcUrl: string;
  keyring: Keyring;
  /** Asked before every signature; it resolves when a person approved. */
  confirm: ConfirmSigning;
  onLog?: (line: string) => void;
};

const unauthorised = () =>
  new RpcError(4100, 'The requested account and/or method has not been authorized by the user.');

function decodeBase64(value: unknown, what: string): Uint8Array {
  if (typeof value !== 'string') throw new RpcError(-32602, `${what} must be a base64 string`);
  try {
    return base64.decode(value);
  } catch {
    throw new RpcError(-32602, `${what} is not valid base64`);
  }
}

/** A Solana chain: messages and transactions signed locally with ed25519, broadcast through the RPC URL. */
export function createSolanaChain(options: SolanaChainOptions) {
  const { keyring } = options;
  const rpc = createRpcClient(options.rpcUrl);

  function account(params: Record<string, Json>, context: InvokeContext) {
    const address = isPlainObject(params.account) ? params.account.address : undefined;
    if (typeof address !== 'string' || !context.accounts.includes(address)) throw unauthorised();
    const held = keyring.solanaAccount(address);
    if (!held) throw unauthorised();
    return held;
  }

  /** Asks a person; then the account as the wallet holds it now (it may have left meanwhile). */
  async function approved(
    method: string,
    signer: SolanaAccount,
    context: InvokeContext,
    details: SigningDetails,
  ) {
    await options.confirm(
      { origin: context.origin, scope: options.chainId, method, account: signer.address, details },
      context.signal,
    );
    const held = keyring.solanaAccount(signer.address);
    if (!held) throw unauthorised();
    return held;
  }

  /** The wire transaction of `params.transaction`, checked to need the account's signature. */
  function transactionToSign(wire: Json | undefined, signer: SolanaAccount) {
    const bytes = decodeBase64(wire, 'transaction');
    let transaction: ReturnType<ReturnType<typeof getTransactionDecoder>['decode']>;
    try {
      transaction = getTransactionDecoder().decode(bytes);
    } catch (error) {
      throw new RpcError(-32602, `transaction is not a Solana wire transaction: ${String(error)}`);
    }
    if (!(signer.address in transaction.signatures)) {
      throw new RpcError(-32602, `${signer.address} is not a signer of this transaction`);
    }
    return transaction;
  }

  /** What the page shows for one transaction; a message that does not decode is -32602. */
  function describe(transaction: { messageBytes: Uint8Array | ArrayLike<number> }, sends: boolean) {
    try {
      return describeSolanaTransaction(transaction.messageBytes as Uint8Array, { sends });
    } catch (error) {
      throw new RpcError(-32602, `transaction message cannot be decoded: ${String(error)}`);
    }
  }

  function signWith(signer: SolanaAccount, transaction: ReturnType<typeof transactionToSign>): Uint8Array {
    const signature = signer.sign(new Uint8Array(transaction.messageBytes)) as SignatureBytes;
    const signed = {
      ...transaction,
      signatures: { ...transaction.signatures, [signer.address as Address]: signature },
    };
    return new Uint8Array(getTransactionEncoder().encode(signed));
  }

  async function signTransaction(
    method: string,
    params: Record<string, Json>,
    context: InvokeContext,
  ): Promise<Uint8Array> {
    const asked = account(params, context);
    const transaction = transactionToSign(params.transaction, asked);
    const details = describe(transaction, method === 'signAndSendTransaction');
    return signWith(await approved(method, asked, context, details), transaction);
  }

  /** Several transactions of one account, approved at once (the Wallet Standard's multi-input sign). */
  async function signAll(params: Record<string, Json>, context: InvokeContext): Promise<Json> {
    const asked = account(params, context);
    const { transactions } = params;
    if (!Array.isArray(transactions) || transactions.length === 0 || transactions.length > MAX_TRANSACTIONS)
      throw new RpcError(
        -32602,
        `transactions must be a list of 1 to ${MAX_TRANSACTIONS} base64 transactions`,
      );
    const decoded = transactions.map((item) => transactionToSign(item, asked));
    const fields: SigningField[] = [];
    decoded.forEach((transaction, index) => {
      const view = describe(transaction, false);
      fields.push({ label: `Transaction ${index + 1}`, value: view.summary, format: 'text' });
      for (const field of view.fields)
        fields.push({ ...field, label: `Transaction ${index + 1}: ${field.label}` });
    });
    const signer = await approved('signAllTransactions', asked, context, {
      title: 'Signature request',
      summary: `Sign ${decoded.length} transaction${decoded.length === 1 ? '' : 's'}`,
      fields,
    });
    return { signedTransactions: decoded.map((transaction) => base64.encode(signWith(signer, transaction))) };
  }

  /** Sign-In With Solana: the message built from the dapp's input, signed by the chosen account. */
  async function signIn(params: Record<string, Json>, context: InvokeContext): Promise<Json> {
    const input = parseSignInInput(params);
    const address = input.address ?? context.accounts[0];
    if (address === undefined || !context.accounts.includes(address)) throw unauthorised();
    const held = keyring.solanaAccount(address);
    if (!held) throw unauthorised();
    let domain = input.domain;
    if (domain === undefined) {
      try {
        domain = new URL(context.origin).host;
      } catch {
        throw new RpcError(-32602, 'signIn: give a domain (the origin has no host)');
      }
    }
    const text = signInMessageText({ ...input, domain, address });
    const signer = await approved('signIn', held, context, {
      title: 'Sign-in request',
      summary: `Sign in to ${domain}`,
      fields: [{ label: 'Message', value: text, format: 'text' }],
      warnings: signInWarnings({ ...input, domain }, context.origin, Date.now()),
    });
    const message = new TextEncoder().encode(text);
    return {
      account: { address: signer.address },
      signedMessage: base64.encode(message),
      signature: base58.encode(signer.sign(message)),
      signatureType: 'ed25519',
    };
  }

  async function invoke(request: InvokeRequest, context: InvokeContext): Promise<Json> {
    const params = request.params;
    if (!isPlainObject(params)) throw new RpcError(-32602, `${request.method} expects an object of params`);
    switch (request.method) {
      case 'signMessage': {
        const asked = account(params, context);
        const message = decodeBase64(params.message, 'message');
        const signer = await approved(request.method, asked, context, {
          title: 'Signature request',
          summary: 'Sign a message',
          fields: [describeMessage(message)],
        });
        const signature = signer.sign(message);
        return {
          signature: base58.encode(signature),
          signedMessage: base64.encode(message),
          signatureType: 'ed25519',
        };
      }
      case 'signTransaction':
        return { signedTransaction: base64.encode(await signTransaction(request.method, params, context)) };
      case 'signAndSendTransaction': {
        const signed = await signTransaction(request.method, params, context);
        const sendOptions = isPlainObject(params.options) ? params.options : {};
        const signature = await rpc.request('sendTransaction', [
          base64.encode(signed),
          { encoding: 'base64', ...sendOptions },
        ]);
        options.onLog?.(`wallet: sent transaction ${String(signature)} on ${options.chainId}`);
        return { signature };
      }
      case 'signAllTransactions':
        return signAll(params, context);
      case 'signIn':
        return signIn(params, context);
      default:
        throw new RpcError(-32601, `${request.method} is not supported on ${options.chainId}`);
    }
  }

  return {
    scope: options.chainId,
    methods: [...SOLANA_METHODS],
    notifications: [] as string[],
    invoke,
    /** The address's balance, e.g. `1.5 SOL` (getBalance through the RPC URL). */
    balance: async (address: string) => {
      const result = await rpc.request('getBalance', [address]);
      const lamports = isPlainObject(result) ? result.value : undefined;
      if (typeof lamports !== 'number') throw new RpcError(-32603, 'getBalance answered no lamports');
      return formatSol(BigInt(lamports));
    },
    close: () => {},
  };
}

/** Verifies an ed25519 signature (for callers checking what the wallet signed). */
export function verifySolanaSignature(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): boolean {
  return ed25519.verify(signature, message, publicKey);
}
