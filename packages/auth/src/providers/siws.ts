// Sign-In With Solana (Phantom's SIWS, after EIP-4361): the message `solana:signIn` signs. The same
// format as the reference wallet's (packages/wallet/src/signing/sign-in.ts), which refuses bad input
// with JSON-RPC errors where this throws TypeErrors; both are checked with
// @solana/wallet-standard-util's `verifySignIn`, which rebuilds the message from the dapp's input.

import type { SolanaSignInInput } from '@solana/wallet-standard-features';

/** The optional fields, in the order they appear in the message. */
const FIELDS = [
  ['uri', 'URI'],
  ['version', 'Version'],
  ['chainId', 'Chain ID'],
  ['nonce', 'Nonce'],
  ['issuedAt', 'Issued At'],
  ['expirationTime', 'Expiration Time'],
  ['notBefore', 'Not Before'],
  ['requestId', 'Request ID'],
] as const;

const oneLine = (value: unknown, name: string): void => {
  // A line break would let a dapp write a field of its own into the message.
  if (value !== undefined && (typeof value !== 'string' || value === '' || /[\r\n]/.test(value)))
    throw new TypeError(`signIn: ${name} must be a non-empty string on one line`);
};

/** The message text; throws a TypeError on a field that is not one line of text or a date that is not one. */
export function signInMessageText(input: SolanaSignInInput & { domain: string; address: string }): string {
  for (const name of ['domain', 'address', 'statement', ...FIELDS.map(([field]) => field)] as const)
    oneLine(input[name], name);
  if (input.resources !== undefined) {
    if (!Array.isArray(input.resources)) throw new TypeError('signIn: resources must be a list of strings');
    input.resources.forEach((resource, i) => {
      oneLine(resource, `resources[${i}]`);
    });
  }
  for (const name of ['issuedAt', 'expirationTime', 'notBefore'] as const) {
    const value = input[name];
    if (value !== undefined && Number.isNaN(Date.parse(value)))
      throw new TypeError(`signIn: ${name} must be an ISO 8601 date-time`);
  }
  let text = `${input.domain} wants you to sign in with your Solana account:\n${input.address}`;
  if (input.statement) text += `\n\n${input.statement}`;
  const lines: string[] = [];
  for (const [name, label] of FIELDS) {
    const value = input[name];
    if (value) lines.push(`${label}: ${value}`);
  }
  if (input.resources) lines.push('Resources:', ...input.resources.map((resource) => `- ${resource}`));
  if (lines.length > 0) text += `\n\n${lines.join('\n')}`;
  return text;
}
