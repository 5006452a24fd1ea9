import type { DevConfigOut } from './dev-config-out.ts';

/**
 * Said in the banner: the dev auth service's logins are open to anyone who can reach it, and with
 * no redirect allow-list its login results go to any redirect URL (portico start refuses both).
 */
export const DEV_LOGIN_WARNING =
  'WARNING: development logins are on: anyone who can reach the auth service can log in as any user (the login form, /dev/token, portico dev-token), and login results go to any redirect URL (no allow-list). For development only; never expose portico dev.';

/** The text `portico dev` prints once everything is up: addresses, keys, copy-paste examples. */
export function printBanner(config: DevConfigOut, options: { blockTime: number; walletLines: string[] }) {
  const curlTo = (url: string, method: string, params: unknown[]) =>
    `curl -s -X POST -H 'Content-Type: application/json' \\\n    --data '${JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })}' \\\n    ${url}`;
  const curl = (method: string, params: unknown[]) => curlTo(config.networks.local.rpcUrl, method, params);

  const lines = [
    '',
    'Portico dev is running. Press Ctrl-C to stop.',
    '',
    `  Gateway        ${config.gatewayUrl}`,
    ...Object.entries(config.networks).map(
      ([name, n]) => `  Network        ${name.padEnd(14)} ${n.chainId.padEnd(48)} ${n.baseUrl}/v3/<API_KEY>`,
    ),
    `  API key        ${config.apiKey}`,
    `  Dashboard      ${config.dashboard.url}   (sign in with the admin token)`,
    `  Admin token    in ${config.dataDir}/admin-token   (admin API: ${config.gatewayUrl}/admin/keys)`,
    `  Data folder    ${config.dataDir}`,
    `  anvil          ${config.evm.upstreamUrl}  (chain 31337, ${options.blockTime ? `a block every ${options.blockTime} s` : 'a block per transaction'})`,
    `  Dev accounts   ${config.evm.accounts.slice(0, 3).join(', ')}, ... (mnemonic "test test ... junk")`,
    `  Demo contract  ${config.evm.demoContract}`,
    `  Solana ledger  ${config.solana.upstreamUrl}  (dev accounts ${config.solana.devAccounts.map((a) => `${a.name} ${a.address}`).join(', ')})`,
    `  Auth service   ${config.auth.sdkUrl}   (an app's sdkUrl: a person logs in from the app, or with "Log in" on the wallet's approval page; JWKS ${config.auth.jwksUrl})`,
    `  Dev login      POST ${config.auth.devJwt.tokenUrl} {"sub":"alice"}  or  portico dev-token alice   (loginProvider "${config.auth.devJwt.loginProvider}")`,
    `  Faucet         new users get ${config.faucet.amounts.eip155} ETH and ${config.faucet.amounts.solana} SOL;  portico fund <address> [--amount N]   (POST ${config.faucet.url})`,
    ...options.walletLines.map((line) => `  ${line}`),
    '',
    `  ${DEV_LOGIN_WARNING}`,
    '',

    'Try:',
    `  ${curl('eth_getBlockByNumber', ['latest', false])}`,
    '',
    `  ${curl('eth_getTransactionReceipt', [config.evm.transactions.failed])}`,
    '',
    `  ${curlTo(config.networks['solana-local'].rpcUrl, 'getSignaturesForAddress', [config.solana.devAccounts[0].address, { limit: 5 }])}`,
    '',
    `  ${curl('eth_call', [{ to: config.evm.demoContract, data: '0xe7cb5232' /* failWithReason() */ }, 'latest'])}`,
    '',
  ];
  console.log(lines.join('\n'));
}
