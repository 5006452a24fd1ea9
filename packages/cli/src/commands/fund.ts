import { parseArgs } from 'node:util';
import { FAUCET_PATH, type FundResultJson, namespaceOfAddress } from '@portico/devchain';
import { defaultDataDir } from '../data-dir.ts';
import { readRunning } from '../dev-services.ts';
import { CliError } from '../errors.ts';

const HELP = `portico fund ADDRESS [--amount N] [--json]

Tops an address up on the dev chains of a running portico dev: an EVM address (0x…) on anvil, a
Solana address (base58) on the dev ledger. Only portico dev has a faucet.

  --amount N        ETH or SOL to add (default 10), e.g. 2.5
  --data-dir DIR    the data folder of the running portico dev (default ${defaultDataDir()})
  --url URL         or the address of its gateway (POST URL${FAUCET_PATH})
  --json            machine-readable output`;

export async function runFund(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      amount: { type: 'string' },
      'data-dir': { type: 'string' },
      url: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const [address, ...extra] = positionals;
  if (!address || extra.length > 0) throw new CliError('usage: portico fund ADDRESS [--amount N]');
  if (!namespaceOfAddress(address)) {
    throw new CliError(
      'the address must be an EVM address (0x and 40 hex digits) or a Solana address (base58)',
    );
  }
  const faucetUrl = values.url
    ? `${values.url.replace(/\/+$/, '')}${FAUCET_PATH}`
    : readRunning(values['data-dir'] ?? defaultDataDir()).faucetUrl;
  const response = await fetch(faucetUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address, amount: values.amount }),
  }).catch(() => {
    throw new CliError(`cannot reach portico dev's faucet at ${faucetUrl}`);
  });
  const body = (await response.json().catch(() => ({}))) as FundResultJson & { error?: { message: string } };
  if (response.status === 404 && !body.error) {
    throw new CliError(`${faucetUrl} has no faucet (only portico dev has one)`);
  }
  if (!response.ok) throw new CliError(body.error?.message ?? `the faucet answered HTTP ${response.status}`);
  if (values.json) console.log(JSON.stringify(body, null, 2));
  else {
    console.log(
      `Funded ${body.address} with ${body.amount} ${body.symbol} on ${body.chainId}: it holds ${body.balance} ${body.symbol}.`,
    );
  }
  return 0;
}
