// `POST /dev/fund {"address", "amount"?}`: the dev faucet over HTTP, for `portico fund` and for
// browser apps next to `portico dev` (CORS-open: it only ever funds the embedded dev chains).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTooLargeError, readBody } from '@portico/http';
import {
  type DevFaucet,
  FaucetError,
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

async function readFundRequest(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readBody(request, MAX_BODY);
  } catch (error) {
    if (error instanceof BodyTooLargeError)
      throw new FaucetError('invalid_request', 'request body too large');
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new FaucetError(
      'invalid_request',
      'body must be a JSON object: {"address": "0x…" or base58, "amount"?: "10"}',
    );
  }
  return body as Record<string, unknown>;
}

/** Funds what a request body names. `amount`: ETH / SOL as a decimal string or number (default: the faucet's). */
export async function fundFromRequest(faucet: DevFaucet, body: Record<string, unknown>): Promise<FundResult> {
  const { address, amount } = body;
  if (typeof address !== 'string') throw new FaucetError('invalid_address', 'address is required');
  const namespace = namespaceOfAddress(address);
  if (!namespace) {
    throw new FaucetError(
      'invalid_address',
      'address must be an EVM address (0x…) or a Solana address (base58)',
    );
  }
  let value: bigint | undefined;
  if (typeof amount === 'string' || typeof amount === 'number')
    value = parseFaucetAmount(namespace, String(amount));
  else if (amount !== undefined)
    throw new FaucetError('invalid_amount', 'amount must be a decimal string, e.g. "2.5"');
  return faucet.fund(namespace, address, value);
}

/** A request handler for the gateway's `extraHandlers`: serves `POST /dev/fund`; false for other paths. */
export function createFaucetHandler(
  faucet: DevFaucet,
): (request: IncomingMessage, response: ServerResponse) => boolean {
  return (request, response) => {
    if ((request.url ?? '').split('?')[0] !== FAUCET_PATH) return false;
    if (request.method !== 'POST') {
      send(response, 405, { error: { code: 'method_not_allowed', message: `POST ${FAUCET_PATH}` } });
      return true;
    }
    readFundRequest(request)
      .then((body) => fundFromRequest(faucet, body))
      .then(
        (result) => send(response, 200, fundResultJson(result)),
        (error: unknown) => {
          if (error instanceof FaucetError) {
            const status = error.code === 'chain_error' ? 502 : error.code === 'no_chain' ? 404 : 400;
            send(response, status, { error: { code: error.code, message: error.message } });
          } else send(response, 500, { error: { code: 'internal', message: 'the faucet failed' } });
        },
      );
    return true;
  };
}
