import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Auth, MemoryStorage } from '@portico/auth';
import { type Anvil, startAnvil } from '@portico/devchain';
import {
  connect,
  createConfig,
  disconnect,
  getConnection,
  reconnect,
  sendTransaction,
  signMessage,
  switchChain,
  waitForTransactionReceipt,
} from '@wagmi/core';
import { defineChain, http, parseEther, verifyMessage } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { porticoAuth } from '../src/wagmi.ts';
import { CLIENT_ID, startTestAuthService, type TestAuthService } from './auth-service.ts';

const chain = (id: number, name: string) =>
  defineChain({
    id,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: ['http://unused.invalid'] } },
  });
const local = chain(31337, 'local');
const other = chain(8453, 'other');
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

// The connector driven by @wagmi/core's own actions against the real auth service (headless JWT
// login) and real anvil chains: what a wagmi app does with it.
describe('porticoAuth wagmi connector', { timeout: 120_000 }, () => {
  let service: TestAuthService;
  let anvils: Anvil[] = [];

  before(async () => {
    service = await startTestAuthService();
    anvils = [await startAnvil({ chainId: local.id }), await startAnvil({ chainId: other.id })];
  });
  after(async () => {
    const keepAlive = setInterval(() => {}, 1000); // anvil's child is unref'd: wait for its exit
    try {
      for (const anvil of anvils) await anvil.stop();
      await service?.close();
    } finally {
      clearInterval(keepAlive);
    }
  });

  const createAuth = async () => {
    const auth = await Auth.create(
      {
        clientId: CLIENT_ID,
        network: 'sapphire_devnet',
        sdkUrl: service.server.sdkUrl,
        chainConfig: { chainNamespace: 'eip155', chainId: '0x7a69', rpcTarget: anvils[0].url },
      },
      { storage: new MemoryStorage() },
    );
    auth.addChain({ chainNamespace: 'eip155', chainId: '0x2105', rpcTarget: anvils[1].url });
    return auth;
  };
  const wagmiConfig = (auth: Auth, user: string) =>
    createConfig({
      chains: [local, other],
      connectors: [
        porticoAuth({
          auth,
          loginParams: async () => ({
            loginProvider: 'jwt',
            extraLoginOptions: { id_token: await service.token(user) },
          }),
        }),
      ],
      transports: { [local.id]: http(anvils[0].url), [other.id]: http(anvils[1].url) },
      multiInjectedProviderDiscovery: false,
    });

  it('connect logs in; wagmi signs and sends with the user’s key, switches chain; disconnect logs out', async () => {
    const auth = await createAuth();
    const config = wagmiConfig(auth, 'wanda');
    const [connector] = config.connectors;
    assert.equal(await connector.isAuthorized(), false, 'no session yet');

    const connected = await connect(config, { connector });
    const user = privateKeyToAccount(`0x${auth.getPrivKey()}`);
    assert.deepEqual(connected.accounts, [user.address], 'the login’s account');
    assert.equal(connected.chainId, local.id);
    assert.equal(getConnection(config).status, 'connected');

    const signature = await signMessage(config, { message: 'hello from wagmi' });
    assert.ok(await verifyMessage({ address: user.address, message: 'hello from wagmi', signature }));

    await fetch(anvils[0].url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setBalance',
        params: [user.address, '0x56bc75e2d63100000'],
      }),
    });
    const hash = await sendTransaction(config, {
      to: '0x000000000000000000000000000000000000dEaD',
      value: parseEther('0.01'),
    });
    assert.equal((await waitForTransactionReceipt(config, { hash })).status, 'success');

    await switchChain(config, { chainId: other.id });
    assert.equal(getConnection(config).chainId, other.id);
    assert.equal(await connector.getChainId(), other.id, 'the provider moved too');

    await disconnect(config);
    assert.equal(getConnection(config).status, 'disconnected');
    assert.equal(auth.state.sessionId, undefined, 'disconnect logged out');
  });

  it('a login or logout made outside wagmi connects and disconnects it; reconnect finds a live session', async () => {
    const auth = await createAuth();
    const config = wagmiConfig(auth, 'xena');
    await settle(); // the connector's setup subscribes to the instance
    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await service.token('xena') } });
    await settle();
    const user = privateKeyToAccount(`0x${auth.getPrivKey()}`);
    assert.equal(getConnection(config).status, 'connected');
    assert.equal(getConnection(config).address, user.address);

    await auth.logout();
    await settle();
    assert.equal(getConnection(config).status, 'disconnected', 'the provider’s disconnect reached wagmi');

    await auth.login({ loginProvider: 'jwt', extraLoginOptions: { id_token: await service.token('xena') } });
    const fresh = wagmiConfig(auth, 'xena');
    await reconnect(fresh);
    assert.equal(getConnection(fresh).status, 'connected', 'a page load with a live session reconnects');
    assert.equal(getConnection(fresh).address, user.address);
  });
});
