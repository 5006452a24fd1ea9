import { registerWallet } from '@wallet-standard/wallet';
import type { WalletBridge } from './bridge.ts';

export type WalletIdentity = {
  /** Per page load (EIP-6963 asks for a UUIDv4); default `crypto.randomUUID()`. */
  uuid?: string;
  name: string;
  /** A data: URI (EIP-6963 and the Wallet Standard both ask for one). */
  icon: string;
  /** Reverse DNS name, e.g. `dev.portico.wallet`. */
  rdns: string;
};

/** The CAIP-294 target of an in-page provider (no standard target type exists for one yet). */
export const IN_PAGE_TARGET_TYPE = 'portico_inpage';

/**
 * Makes a bridge discoverable by the page's dapps: EIP-6963 (`eip6963:announceProvider` with
 * `{ info: { uuid, name, icon, rdns }, provider }`, again on every `eip6963:requestProvider`), the
 * Wallet Standard (`registerWallet` of `bridge.solana`) and CAIP-294 (`caip294:wallet_announce` with
 * the Multichain API as an `portico_inpage` target, again on every `caip294:wallet_prompt`).
 * Returns a function that stops answering.
 */
export function announceWalletBridge(bridge: WalletBridge, identity: WalletIdentity): () => void {
  const { name, icon, rdns } = identity;
  const uuid = identity.uuid ?? crypto.randomUUID();
  const eip6963 = () =>
    window.dispatchEvent(
      new CustomEvent('eip6963:announceProvider', {
        detail: Object.freeze({ info: Object.freeze({ uuid, name, icon, rdns }), provider: bridge.ethereum }),
      }),
    );
  const caip294 = () =>
    window.dispatchEvent(
      new CustomEvent('caip294:wallet_announce', {
        detail: Object.freeze({
          id: 1,
          jsonrpc: '2.0',
          method: 'wallet_announce',
          params: Object.freeze({
            uuid,
            name,
            icon,
            rdns,
            target: Object.freeze({ type: IN_PAGE_TARGET_TYPE, value: bridge.multichain }),
          }),
        }),
      }),
    );
  window.addEventListener('eip6963:requestProvider', eip6963);
  window.addEventListener('caip294:wallet_prompt', caip294);
  eip6963();
  caip294();
  registerWallet(bridge.solana);
  return () => {
    window.removeEventListener('eip6963:requestProvider', eip6963);
    window.removeEventListener('caip294:wallet_prompt', caip294);
  };
}
