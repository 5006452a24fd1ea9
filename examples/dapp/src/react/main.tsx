// The React variant: @portico/react's provider and hooks for the session, and wagmi (its core
// actions) on the same login through the porticoAuth connector.
import { PorticoAuthProvider } from '@portico/react';
import { porticoAuth } from '@portico/react/wagmi';
import { createConfig, http, reconnect } from '@wagmi/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createAuth, devChain } from '../account.ts';
import { config } from '../config.ts';
import { App } from './App.tsx';

// A browser-only app: the instance is made before the first render (a server-rendered app passes
// `init={authInitParams}` to the provider instead, which makes it in the browser).
const auth = await createAuth();
const wagmiConfig = createConfig({
  chains: [devChain],
  connectors: [porticoAuth({ auth })],
  transports: { [devChain.id]: http(config.evm.rpcUrl) },
  multiInjectedProviderDiscovery: false,
});
// A session restored on this page load: wagmi takes it up too.
await reconnect(wagmiConfig);

const root = document.getElementById('root');
if (!root) throw new Error('no #root');
createRoot(root).render(
  <StrictMode>
    <PorticoAuthProvider auth={auth}>
      <App wagmiConfig={wagmiConfig} />
    </PorticoAuthProvider>
  </StrictMode>,
);
