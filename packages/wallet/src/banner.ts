// What `portico dev` prints about the wallet: the start-up banner and the --config-out section.
import type { Wallet } from './wallet-types.ts';

/** The warning to print whenever the wallet runs with autoApprove. */
export const AUTO_APPROVE_WARNING =
  'WARNING: the wallet auto-approves every connection and signing request with all accounts. Development only: any web page on this machine can connect, sign and send transactions with these keys.';

/** Lines for a start-up banner (no keys, ever). */
export function walletBannerLines(wallet: Wallet): string[] {
  return [
    `Wallet (Multichain API) ws:   ${wallet.wsUrl}`,
    `Wallet approval page:         ${wallet.approvalUrl}`,
    `Wallet chains:                ${wallet.chains.join(', ')}`,
    `Wallet accounts (eip155):     ${(wallet.accounts.eip155 ?? []).join(', ')}`,
    ...(wallet.chains.some((chain) => chain.startsWith('solana:'))
      ? [`Wallet accounts (solana):     ${(wallet.accounts.solana ?? []).join(', ')}`]
      : []),
    ...(wallet.authClient
      ? [`Wallet login:                 "Log in" on the approval page (auth ${wallet.authClient.sdkUrl})`]
      : []),
    ...(wallet.autoApprove ? [AUTO_APPROVE_WARNING] : []),
  ];
}

/** The `wallet` section of `portico dev --config-out`. */
export function walletConfigOut(wallet: Wallet): {
  wsUrl: string;
  approvalUrl: string;
  chains: string[];
  accounts: Record<string, string[]>;
  accountSource: Wallet['accountSource'];
  auth: { sdkUrl: string; clientId: string } | null;
  autoApprove: boolean;
} {
  return {
    wsUrl: wallet.wsUrl,
    approvalUrl: wallet.approvalUrl,
    chains: wallet.chains,
    accounts: wallet.accounts,
    accountSource: wallet.accountSource,
    auth: wallet.authClient ?? null,
    autoApprove: wallet.autoApprove,
  };
}
