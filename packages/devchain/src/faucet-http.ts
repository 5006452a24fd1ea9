// `POST /dev/fund {"address", "amount"?}`: the dev faucet over HTTP, for `portico fund` and for
// browser apps next to `portico dev` (CORS-open: it only ever funds the embedded dev chains).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, field, fields, optional, parseBody, readBody, rule } from '@portico/http';
import {
  type DevFaucet,
  FaucetError,
  type FaucetErrorCode,
  type FundResult,
  formatFaucetAmount,
  namespaceOfAddress,
  parseFaucetAmount,
} from './faucet.ts';

/** The path `portico dev` serves the faucet on (on the gateway). */
export const FAUCET_PATH = '/dev/fund';

const MAX_BODY = 4096;

/** A `FundResult` as JSON: amounts in ETH / SOL as exact decimal strings, plus wei / lamports. */
export interface FundResultJson {
  namespace: string;
  chainId: string;
  address: string;
  symbol: string;
  /** Added and held afterwards, in ETH / SOL (`"10"`). */
  amount: string;
  balance: string;
  /** The same in wei / lamports. */
  amountBaseUnits: string;
  balanceBaseUnits: string;
  signature?: string;
}

export function fundResultJson(result: FundResult): FundResultJson {
  const units = (value: bigint) => formatFaucetAmount(result.namespace, value).split(' ')[0];
  return {
    namespace: result.namespace,
    chainId: result.chainId,
    address: result.address,
    symbol: result.symbol,
    amount: units(result.amount),
    balance: units(result.balance),
    amountBaseUnits: result.amount.toString(),
    balanceBaseUnits: result.balance.toString(),
    ...(result.signature ? { signature: result.signature } : {}),
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'access-control-allow-origin': '*',
  });
  response.end(JSON.stringify(body));
}

const BODY_SHAPE = 'body must be a JSON object: {"address": "0x…" or base58, "amount"?: "10"}';

/** `POST /dev/fund`'s body; an address that names no dev chain is the faucet's to refuse. */
const FUND_BODY = fields({
  address: rule<string>((value) => typeof value === 'string' || 'is required'),
  amount: optional(
    field<string | number>(
      'a decimal string, e.g. "2.5"',
      (value) => typeof value === 'string' || typeof value === 'number',
    ),
  ),
});

/** The faucet's code for a body field at fault (the body itself: `INVALID_REQUEST`). */
const REFUSED: Record<string, FaucetErrorCode> = { address: 'INVALID_ADDRESS', amount: 'INVALID_AMOUNT' };

const refuse = (at: string, message: string) =>
  Object.hasOwn(REFUSED, at)
    ? new FaucetError(REFUSED[at], message)
    : new FaucetError('INVALID_REQUEST', at === 'body' ? BODY_SHAPE : message);

async function readFundRequest(request: IncomingMessage): Promise<unknown> {
  let text: string;
  try {
    text = await readBody(request, MAX_BODY);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new FaucetError('INVALID_REQUEST', 'request body too large');
    throw error;
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new FaucetError('INVALID_REQUEST', BODY_SHAPE);
  }
}

/** Funds what a request body names. `amount`: ETH / SOL as a decimal string or number (default: the faucet's). */
export async function fundFromRequest(faucet: DevFaucet, body: unknown): Promise<FundResult> {
  const { address, amount } = parseBody(FUND_BODY, body, refuse);
  const namespace = namespaceOfAddress(address);
  if (!namespace) {
    throw new FaucetError(
      'INVALID_ADDRESS',
      'address must be an EVM address (0x…) or a Solana address (base58)',
    );
  }
  const value = amount === undefined ? undefined : parseFaucetAmount(namespace, String(amount));
  return faucet.fund(namespace, address, value);
}

/** A request handler for the gateway's `extraHandlers`: serves `POST /dev/fund`; false for other paths. */
export function createFaucetHandler(
  faucet: DevFaucet,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    if ((request.url ?? '').split('?')[0] !== FAUCET_PATH) return false;
    if (request.method !== 'POST') {
      send(response, 405, { error: { code: 'METHOD_NOT_ALLOWED', message: `POST ${FAUCET_PATH}` } });
      return true;
    }
    readFundRequest(request)
      .then((body) => fundFromRequest(faucet, body))
      .then(
        (result) => send(response, 200, fundResultJson(result)),
        (error: unknown) => {
          if (error instanceof FaucetError) {
            send(response, error.status, { error: { code: error.code, message: error.message } });
          } else send(response, 500, { error: { code: 'INTERNAL_ERROR', message: 'the faucet failed' } });
        },
      );
    return true;
  };
}
