// The reference wallet through the Multichain API (CAIP-25): a session on the dev EVM chain,
// personal_sign approved (or rejected) by a person on the wallet's page, and new blocks pushed
// as wallet_notify.
import { createMultichainClient, createWebSocketTransport, type MultichainClient } from '@portico/multichain';
import { type Hex, stringToHex } from 'viem';
import { config } from './config.ts';

export type WalletConnection = {
  /** The account the person granted on the chain. */
  account: Hex;
  /** personal_sign by the wallet; rejects with MultichainRpcError 4001 when the person rejects. */
  signMessage(message: string): Promise<Hex>;
  close(): Promise<void>;
};

export type NewBlock = { number: bigint; hash: Hex };

let walletPage: Window | null = null;

/**
 * Brings up the wallet's approval page, where the person answers the requests. An extension
 * wallet pops its own window; the reference wallet is a web page, whose address `portico dev`
 * prints (and the app gets from --config-out). Call it from a click, or browsers block the popup.
 */
export function showWalletPage(): void {
  if (walletPage && !walletPage.closed) walletPage.focus();
  else walletPage = window.open(config.walletPageUrl, 'portico-wallet', 'popup,width=480,height=720');
}

/** Asks the wallet for a session (the person approves it on the wallet page) and subscribes to new blocks. */
export async function connectWallet(onBlock: (block: NewBlock) => void): Promise<WalletConnection> {
  const scope = config.evm.chainId as `eip155:${string}`;
  // Signing requests wait for the person as long as it takes (approvalTimeoutMs, default none).
  const client: MultichainClient = createMultichainClient({
    transport: createWebSocketTransport({ url: config.walletUrl }),
  });
  const session = await client.createSession({
    optionalScopes: {
      [scope]: { methods: ['personal_sign', 'eth_subscribe'], notifications: ['eth_subscription'] },
    },
  });
  const granted = session.sessionScopes[scope]?.accounts[0];
  if (!granted) throw new Error('the wallet granted no account on this chain');
  const account = granted.split(':')[2] as Hex;

  client.onNotification((notification) => {
    if (notification.method !== 'wallet_notify' || notification.params.scope !== scope) return;
    const { method, params } = notification.params.notification;
    if (method !== 'eth_subscription') return;
    const head = (params as { result: { number: Hex; hash: Hex } }).result;
    onBlock({ number: BigInt(head.number), hash: head.hash });
  });
  await client.invokeMethod({ scope, request: { method: 'eth_subscribe', params: ['newHeads'] } });

  return {
    account,
    signMessage: (message) =>
      client.invokeMethod<Hex>({
        scope,
        request: { method: 'personal_sign', params: [stringToHex(message), account] },
      }),
    close: () => client.close(),
  };
}
