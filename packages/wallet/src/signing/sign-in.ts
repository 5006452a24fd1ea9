// Sign-In With Solana: the message a wallet signs for `solana:signIn` (Phantom's SIWS, which
// follows EIP-4361). The wallet adds only what the dapp may leave out — its domain (the origin's
// host) and the address — so a verifier that rebuilds the message from the dapp's input finds it.

import type { Json } from '@portico/multichain';
import { RpcError } from '../rpc.ts';

/** The optional fields of a sign-in request, in the order they appear in the message. */
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

export type SignInInput = {
  domain?: string;
  address?: string;
  statement?: string;
  resources?: string[];
} & { [K in (typeof FIELDS)[number][0]]?: string };

const oneLine = (value: unknown, name: string): string | undefined => {
  if (value === undefined || value === null) return undefined;
  // A line break would let a dapp write a field of its own into the message.
  if (typeof value !== 'string' || value === '' || /[\r\n]/.test(value))
    throw new RpcError(-32602, `signIn: ${name} must be a non-empty string on one line`);
  return value;
};

/** The dapp's sign-in input, checked: strings on one line, resources a list of them. */
export function parseSignInInput(params: Record<string, Json>): SignInInput {
  const input: SignInInput = {};
  for (const name of ['domain', 'address', 'statement'] as const) {
    const value = oneLine(params[name], name);
    if (value !== undefined) input[name] = value;
  }
  for (const [name] of FIELDS) {
    const value = oneLine(params[name], name);
    if (value !== undefined) input[name] = value;
  }
  if (params.resources !== undefined && params.resources !== null) {
    if (!Array.isArray(params.resources))
      throw new RpcError(-32602, 'signIn: resources must be a list of strings');
    input.resources = params.resources.map((resource, i) => oneLine(resource, `resources[${i}]`) as string);
  }
  for (const name of ['issuedAt', 'expirationTime', 'notBefore'] as const) {
    const value = input[name];
    if (value !== undefined && Number.isNaN(Date.parse(value)))
      throw new RpcError(-32602, `signIn: ${name} must be an ISO 8601 date-time`);
  }
  return input;
}

/** The message text, with `domain` and `address` filled in. */
export function signInMessageText(input: SignInInput & { domain: string; address: string }): string {
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

/** Why a person should look twice at this sign-in: a domain that is not the asking site's, or dates. */
export function signInWarnings(
  input: SignInInput & { domain: string },
  origin: string,
  now: number,
): string[] {
  const warnings: string[] = [];
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== input.domain)
    warnings.push(
      `This sign-in is for ${input.domain}, but ${origin} asks for it: a site signing you in elsewhere may be a phishing site.`,
    );
  if (input.expirationTime && Date.parse(input.expirationTime) <= now)
    warnings.push('This sign-in has already expired.');
  if (input.notBefore && Date.parse(input.notBefore) > now)
    warnings.push(`This sign-in is valid only from ${input.notBefore}.`);
  return warnings;
}
