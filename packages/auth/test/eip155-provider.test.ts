import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PorticoDemo, seedEvmChain } from '@portico/devchain';
import {
  connect,
  createConfig,
  getConnection,
  injected,
  sendTransaction,
  signMessage,
  switchChain,
  waitForTransactionReceipt,
} from '@wagmi/core';
import { BrowserProvider } from 'ethers';
import {
  createPublicClient,
  createWalletClient,
  custom,
  defineChain,
  encodeFunctionData,
  type Hex,
  http,
  parseEther,
  parseTransaction,
  recoverTransactionAddress,
  verifyMessage,
  verifyTypedData,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createEip155Provider, type Eip155Provider } from '../src/providers/eip155/index.ts';
import { type ChainStack, recordingFetch, startChainStack } from './chain-stack.ts';

// The EIP-1193 provider on its own (a key getter and chain configs, no auth service) against real
// anvil chains behind a real Portico gateway, driven by viem and ethers as dapps drive it.
describe('eip155 provider (anvil behind the gateway)', { timeout: 120_000 }, () => {
  let stack: ChainStack;
  let rpcUrl: (network: string) => string;
  let keyId: string;
  const key = generatePrivateKey().slice(2);
  const user = privateKeyToAccount(`0x${key}`);
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const local = defineChain({
    id: 31337,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: ['http://unused.invalid'] } },
  });
  let demoContract: Hex;

  const provider = (getPrivKey: () => string = () => key, fetcher?: typeof fetch) =>
    createEip155Provider({
      getPrivKey,
      chainConfig: {
        chainNamespace: 'eip155',
        chainId: '0x7a69',
        rpcTarget: rpcUrl('local'),
        displayName: 'Local',
      },
      chains: [{ chainNamespace: 'eip155', chainId: '0x2105', rpcTarget: rpcUrl('other') }],
      fetch: fetcher,
    });

  before(async () => {
    stack = await startChainStack({ evm: { local: 31337, other: 8453 } });
    ({ url: rpcUrl, id: keyId } = await stack.newKey());
    demoContract = (await seedEvmChain(stack.anvils.local.url)).demoContract;
    // Funding is set-up, straight on anvil: the provider's own calls are the ones that must be metered.
    for (const network of Object.keys(stack.anvils)) await stack.fundEvm(network, user.address);
  });
  after(async () => {
    await stack?.close();
  });

  it('viem custom(provider) sends a transaction that is mined, with nonce, gas and fees filled through the gateway', async () => {
    const calls = recordingFetch();
    const p = provider(undefined, calls.fetch);
    const wallet = createWalletClient({ chain: local, transport: custom(p) });
    const [account] = await wallet.requestAddresses();
    assert.equal(account, user.address);
    const hash = await wallet.sendTransaction({ account, to: recipient, value: parseEther('0.01') });
    const reader = createPublicClient({ chain: local, transport: http(rpcUrl('local')) });
    const receipt = await reader.waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.equal(receipt.from.toLowerCase(), user.address.toLowerCase());
    assert.equal(await reader.getBalance({ address: recipient }), parseEther('0.01'));
    const tx = await reader.getTransaction({ hash });
    assert.equal(tx.type, 'eip1559');
    for (const method of [
      'eth_getTransactionCount',
      'eth_estimateGas',
      'eth_maxPriorityFeePerGas',
      'eth_sendRawTransaction',
    ]) {
      assert.ok(
        calls.methods.includes(method),
        `${method} went to rpcTarget (sent: ${calls.methods.join(', ')})`,
      );
    }
    assert.ok(!calls.methods.includes('eth_sendTransaction'), 'the node never sees eth_sendTransaction');
  });

  it('ethers BrowserProvider signs a message and typed data that viem verifies', async () => {
    const signer = await new BrowserProvider(provider()).getSigner();
    assert.equal(await signer.getAddress(), user.address);
    const signature = (await signer.signMessage('hello from ethers')) as Hex;
    assert.equal(
      await verifyMessage({ address: user.address, message: 'hello from ethers', signature }),
      true,
    );
    const domain = { name: 'Portico', version: '1', chainId: 31337, verifyingContract: demoContract };
    const types = {
      Mail: [
        { name: 'to', type: 'address' },
        { name: 'amount', type: 'uint256' },
        { name: 'note', type: 'string' },
      ],
    };
    const message = { to: recipient, amount: 12345678901234567890n, note: 'typed' };
    const typed = (await signer.signTypedData(domain, types, message)) as Hex;
    assert.equal(
      await verifyTypedData({
        address: user.address,
        domain,
        types,
        primaryType: 'Mail',
        message,
        signature: typed,
      }),
      true,
    );
    // A domain on another chain is refused, as MetaMask does.
    await assert.rejects(
      signer.signTypedData({ ...domain, chainId: 1 }, types, message),
      /must match the current chain/,
    );
  });

  it("wagmi's injected connector connects, switches chain, signs and sends, and sees the logout", async () => {
    let current = key;
    const p = provider(() => current);
    const other = defineChain({ ...local, id: 8453, name: 'other' });
    const config = createConfig({
      chains: [local, other],
      connectors: [injected({ target: () => ({ id: 'portico', name: 'Portico', provider: p }) })],
      transports: { [local.id]: http(rpcUrl('local')), [other.id]: http(rpcUrl('other')) },
      multiInjectedProviderDiscovery: false,
    });
    const [connector] = config.connectors;
    // wagmi's injected connector looks for a provider only where `window` exists; Node has none,
    // so the test gives it one (the global object) for this test only. The rest is wagmi's own code.
    const g = globalThis as { window?: unknown };
    g.window = globalThis;
    after(() => {
      delete g.window;
    });
    const connected = await connect(config, { connector });
    assert.deepEqual(connected.accounts, [user.address]);
    assert.equal(connected.chainId, 31337);
    await switchChain(config, { chainId: 8453 });
    assert.equal(getConnection(config).chainId, 8453);
    const signature = await signMessage(config, { message: 'hello from wagmi' });
    assert.equal(
      await verifyMessage({ address: user.address, message: 'hello from wagmi', signature }),
      true,
    );
    const hash = await sendTransaction(config, { to: recipient, value: 7n });
    const receipt = await waitForTransactionReceipt(config, { hash, chainId: 8453 });
    assert.equal(receipt.status, 'success');
    // Logout: the provider announces accountsChanged([]) and disconnect; wagmi lets go of the account.
    current = '';
    p.disconnect();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(getConnection(config).status, 'disconnected');
  });

  it('eth_signTransaction returns a filled transaction signed by the user, not broadcast', async () => {
    const p = provider();
    const raw = (await p.request({
      method: 'eth_signTransaction',
      params: [{ from: user.address, to: recipient, value: '0x1' }],
    })) as Hex;
    const tx = parseTransaction(raw);
    assert.equal(tx.chainId, 31337);
    assert.equal(tx.to?.toLowerCase(), recipient.toLowerCase());
    assert.ok(typeof tx.gas === 'bigint' && tx.gas >= 21000n && typeof tx.maxFeePerGas === 'bigint');
    assert.equal(await recoverTransactionAddress({ serializedTransaction: raw as never }), user.address);
    const reader = createPublicClient({ chain: local, transport: http(rpcUrl('local')) });
    assert.equal(tx.nonce, await reader.getTransactionCount({ address: user.address }));
  });

  it('a reverting call comes back with the node’s code 3 and revert data; nothing is sent', async () => {
    const p = provider();
    const data = encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'storeNonZero', args: [0n] });
    await assert.rejects(
      p.request({ method: 'eth_sendTransaction', params: [{ from: user.address, to: demoContract, data }] }),
      (error: { code: number; message: string; data?: unknown }) => {
        assert.equal(error.code, 3);
        assert.match(error.message, /execution reverted/);
        assert.ok(typeof error.data === 'string' && error.data.startsWith('0x'));
        return true;
      },
    );
  });

  it('wallet_switchEthereumChain moves reads and signing to the other configured chain and emits chainChanged', async () => {
    const p = provider();
    const changes: string[] = [];
    p.on('chainChanged', (id) => changes.push(id));
    assert.equal(await p.request({ method: 'eth_chainId' }), '0x7a69');
    assert.equal(
      await p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2105' }] }),
      null,
    );
    assert.equal(await p.request({ method: 'eth_chainId' }), '0x2105');
    // The read reaches the other anvil (chain 8453) through the gateway, not the first.
    assert.equal(await p.request({ method: 'net_version' }), '8453');
    const base = defineChain({ ...local, id: 8453, name: 'other' });
    const wallet = createWalletClient({ chain: base, transport: custom(p), account: user.address });
    const hash = await wallet.sendTransaction({ to: recipient, value: 5n });
    const receipt = await createPublicClient({
      chain: base,
      transport: http(rpcUrl('other')),
    }).waitForTransactionReceipt({ hash });
    assert.equal(receipt.status, 'success');
    assert.deepEqual(changes, ['0x2105']);
    // Switching to the chain it is on changes nothing.
    await p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x2105' }] });
    assert.deepEqual(changes, ['0x2105']);
  });

  it('an unknown chain is 4902; wallet_addEthereumChain adds and switches, but never rewires a configured chain', async () => {
    const p = provider();
    await assert.rejects(p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x1' }] }), {
      code: 4902,
    });
    await assert.rejects(
      p.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: '0x02105' }] }),
      { code: -32602 },
    );
    const addChain = (chainId: string, chainName: string) =>
      p.request({
        method: 'wallet_addEthereumChain',
        params: [{ chainId, chainName, rpcUrls: [rpcUrl('other')], nativeCurrency: local.nativeCurrency }],
      });
    await addChain('0x1', 'Mainnet');
    assert.equal(await p.request({ method: 'eth_chainId' }), '0x1');
    // Re-adding the configured local chain with another RPC only switches to it: reads still reach chain 31337.
    await addChain('0x7a69', 'Hijack');
    assert.equal(await p.request({ method: 'net_version' }), '31337');
    assert.equal(p.chainConfig.displayName, 'Local');
  });

  it('answers with EIP-1193 codes: 4100 for another account, 4200 for eth_sign, 4900 once the key is gone', async () => {
    let current = key;
    const p = provider(() => current);
    const other = privateKeyToAccount(generatePrivateKey()).address;
    await assert.rejects(p.request({ method: 'personal_sign', params: ['0x68656c6c6f', other] }), {
      code: 4100,
    });
    await assert.rejects(
      p.request({ method: 'eth_sendTransaction', params: [{ from: other, to: recipient, value: '0x1' }] }),
      { code: 4100 },
    );
    await assert.rejects(p.request({ method: 'eth_sign', params: [user.address, '0x00'] }), { code: 4200 });
    await assert.rejects(
      p.request({ method: 'eth_sendTransaction', params: [{ value: 'lots' }] }),
      /value must be a hex quantity/,
    );
    const events: unknown[] = [];
    p.on('accountsChanged', (accounts) => events.push(['accountsChanged', accounts]));
    p.on('disconnect', (error) => events.push(['disconnect', error.code]));
    current = ''; // e.g. the session expired and the auth library dropped the keys
    await assert.rejects(p.request({ method: 'personal_sign', params: ['0x00', user.address] }), {
      code: 4900,
    });
    await assert.rejects(p.request({ method: 'eth_blockNumber' }), { code: 4900 });
    assert.deepEqual(await p.request({ method: 'eth_accounts' }), []);
    assert.deepEqual(events, [
      ['accountsChanged', []],
      ['disconnect', 4900],
    ]);
    assert.equal(p.isConnected(), false);
  });

  it('every call of the provider went through the gateway and was charged to the key', async () => {
    const fresh = await stack.newKey();
    const calls = recordingFetch();
    const p: Eip155Provider = createEip155Provider({
      getPrivKey: () => key,
      chainConfig: { chainNamespace: 'eip155', chainId: '0x7a69', rpcTarget: fresh.url('local') },
      fetch: calls.fetch,
    });
    const wallet = createWalletClient({ chain: local, transport: custom(p), account: user.address });
    const hash = await wallet.sendTransaction({ to: recipient, value: 1n });
    const reader = createPublicClient({ chain: local, transport: custom(p) });
    await reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    await reader.getBalance({ address: recipient });
    await wallet.signMessage({ message: 'not a chain call' });
    const sent = calls.counts();
    const charged = await stack.usage(fresh.id);
    assert.deepEqual(
      [...charged.entries()].map(([method, row]) => [method, row.requests]).sort(),
      [...sent.entries()].sort(),
      'each method: as many charged requests as the provider sent',
    );
    for (const [method, row] of charged) assert.ok(row.credits > 0, `${method} cost credits`);
    assert.ok(!sent.has('personal_sign'), 'signing stays local');
    assert.notEqual(fresh.id, keyId);
  });
});
