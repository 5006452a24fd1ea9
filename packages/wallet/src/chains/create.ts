import { isCaipChainId, parseCaipChainId } from '@metamask/utils';
import type { Keyring } from '../keyring.ts';
import type { ConfirmSigning } from '../signing/types.ts';
import type { StartWalletOptions, WalletChainConfig } from '../wallet-types.ts';
import { createEip155Chain, type Eip155Chain } from './eip155.ts';
import { createSolanaChain } from './solana.ts';

/** What the wallet needs of a chain it serves. */
export type ServedChain = Pick<Eip155Chain, 'methods' | 'notifications' | 'invoke' | 'balance' | 'close'>;

/** Builds the chain a config names: eip155 (reads through rpcUrl, local signing) or solana. */
export function createChain(
  config: WalletChainConfig,
  {
    keyring,
    options,
    confirm,
    log,
  }: { keyring: Keyring; options: StartWalletOptions; confirm: ConfirmSigning; log: (line: string) => void },
): ServedChain {
  if (!isCaipChainId(config.chainId)) throw new Error(`invalid CAIP-2 chain id: ${config.chainId}`);
  const { namespace, reference } = parseCaipChainId(config.chainId);
  if (namespace === 'solana')
    return createSolanaChain({
      chainId: config.chainId,
      rpcUrl: config.rpcUrl,
      keyring,
      confirm,
      onLog: log,
    });
  if (namespace !== 'eip155')
    throw new Error(`${config.chainId}: the wallet supports eip155 and solana chains`);
  return createEip155Chain({
    chainId: Number(reference),
    rpcUrl: config.rpcUrl,
    wsRpcUrl: config.wsRpcUrl,
    keyring,
    confirm,
    contracts: options.contracts,
    pollingIntervalMs: options.pollingIntervalMs,
    onLog: log,
  });
}
