/** One line of what a person is asked to sign, in human terms. */
export type SigningField = {
  label: string;
  value: string;
  /** `text` is shown as written (line breaks kept); `code` in a monospace font (addresses, hex). */
  format: 'text' | 'code';
};

/** What the approval page shows for a signing request, beside its origin, network and account. */
export type SigningDetails = {
  /**
   * `Transaction request` when the wallet also sends it (eth_sendTransaction, wallet_sendCalls,
   * signAndSendTransaction); `Sign-in request` for Sign-In With Solana; `Token request` for
   * wallet_watchAsset.
   */
  title: 'Signature request' | 'Transaction request' | 'Sign-in request' | 'Token request';
  /** One sentence: "Sign a message", "Send 0.5 ETH to 0x…", "Call PorticoDemo.store on 0x…". */
  summary: string;
  fields: SigningField[];
  /** What the person should not approve blind (an unlimited approval, a hash, an unknown contract). */
  warnings?: string[];
};

/** A signing request waiting for a person. */
export type SigningRequest = {
  origin: string;
  /** The CAIP-2 scope it was invoked on, e.g. `eip155:31337`. */
  scope: string;
  method: string;
  /** The address that would sign (as the wallet holds it). */
  account: string;
  details: SigningDetails;
};

/**
 * Asks for a person's approval of one signing request. Resolves when approved; rejects with a
 * JSON-RPC error otherwise (4001 rejected, 4100 the account left the session meanwhile). `signal`
 * aborts when the dapp's connection closes or its session ends.
 */
export type ConfirmSigning = (request: SigningRequest, signal: AbortSignal) => Promise<void>;

/** A contract the wallet decodes calls to (name and arguments on the approval page). */
export type KnownContract = {
  name: string;
  address: string;
  /** The contract's JSON ABI (as viem and solc give it). */
  abi: readonly unknown[];
};
