// Type test (checked by `npm run lint`, never run): `auth.provider` goes where viem, ethers v6 and
// wagmi take an EIP-1193 provider, with no cast.
import { injected } from '@wagmi/core';
import { BrowserProvider } from 'ethers';
import { createWalletClient, custom } from 'viem';
import { foundry } from 'viem/chains';
import type { Auth } from '../src/index.ts';

export function clients(auth: Auth) {
  const provider = auth.provider;
  if (!provider) return undefined;
  return {
    viem: createWalletClient({ chain: foundry, transport: custom(provider) }),
    ethers: new BrowserProvider(provider),
    wagmi: injected({ target: () => ({ id: 'portico', name: 'Portico', provider }) }),
  };
}
