import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getMultichainClient } from '@metamask/multichain-api-client';
import { type Anvil, PorticoDemo, seedEvmChain, startAnvil } from '@portico/devchain';
import { getPorticoTransport } from '@portico/multichain';
import { assertAccessible, launchChromium } from '@portico/testkit';
import type { Browser, Page } from 'playwright-core';
import {
  createPublicClient,
  encodeFunctionData,
  type Hex,
  http,
  parseEther,
  toFunctionSelector,
  verifyMessage,
  verifyTypedData,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { DEV_MNEMONIC, startWallet, type Wallet } from '../src/index.ts';
import { apiError, detailsOf, stopAnvil } from './helpers.ts';

const SCOPE = 'eip155:31337';
const ORIGIN = 'https://signing-dapp.test';
const ACCOUNT_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ACCOUNT_1 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

// One wallet (the dev accounts, nothing auto-approved), a dapp over WebSocket with MetaMask's
// client, real anvil with the demo contract, and a person answering on the approval page in Chromium.
describe('every signing request waits on the approval page', { timeout: 120_000 }, () => {
  let anvil: Anvil;
  let demo: Hex;
  let wallet: Wallet;
  let browser: Browser;
  let page: Page;
  const dapp = () =>
    getMultichainClient({ transport: getPorticoTransport({ url: wallet.wsUrl, origin: ORIGIN }) });
  let client: ReturnType<typeof dapp>;

  before(async () => {
    anvil = await startAnvil();
    demo = (await seedEvmChain(anvil.url)).demoContract as Hex;
    wallet = await startWallet({
      chains: [{ chainId: SCOPE, rpcUrl: anvil.url }],
      accountCount: 2,
      contracts: [{ name: 'PorticoDemo', address: demo, abi: PorticoDemo.abi }],
    });
    browser = await launchChromium();
    // bypassCSP lets axe-core be injected; the page itself runs under its own CSP.
    page = await (await browser.newContext({ bypassCSP: true })).newPage();
    await page.goto(wallet.approvalUrl);
    client = dapp();
    const session = client.createSession({
      optionalScopes: { [SCOPE]: { methods: ['personal_sign'], notifications: [] } },
    });
    const request = page.getByRole('region', { name: `Connection request from ${ORIGIN}` });
    await request.waitFor();
    await assertAccessible(page, 'connection request');
    await request.getByRole('checkbox', { name: `eip155:${ACCOUNT_1}` }).check();
    await request.getByRole('button', { name: 'Approve' }).click();
    assert.deepEqual((await session).sessionScopes[SCOPE].accounts, [
      `${SCOPE}:${ACCOUNT_0}`,
      `${SCOPE}:${ACCOUNT_1}`,
    ]);
  });
  after(async () => {
    await browser?.close();
    await wallet?.close();
    await stopAnvil(anvil);
  });

  const invoke = (method: string, params: unknown) =>
    Promise.resolve(client.invokeMethod({ scope: SCOPE, request: { method, params } as never }));

  test('personal_sign shows the origin, the account and the text; Approve signs', async () => {
    const signing = invoke('personal_sign', ['0x48656c6c6f2c20506f727469636f0a6c696e652032', ACCOUNT_1]);
    const request = page.getByRole('region', { name: `Signature request from ${ORIGIN}` });
    const details = await detailsOf(request);
    assert.equal(details.Origin, ORIGIN);
    assert.equal(details.Network, `Local EVM chain (${SCOPE})`);
    assert.equal(details.Account, ACCOUNT_1);
    assert.equal(details.Method, 'personal_sign');
    assert.equal(details.Message, 'Hello, Portico\nline 2');
    assert.equal(await request.getByText('Sign a message').count(), 1);
    await assertAccessible(page, 'signature request');
    await request.getByRole('button', { name: 'Approve' }).click();
    const signature = (await signing) as Hex;
    assert.ok(await verifyMessage({ address: ACCOUNT_1, message: 'Hello, Portico\nline 2', signature }));
    await request.waitFor({ state: 'detached' });
  });

  test('bytes that are not UTF-8 text are shown as hex; Reject answers 4001 "User rejected the request."', async () => {
    const rejected = apiError(invoke('personal_sign', ['0xdeadbeef00', ACCOUNT_0]));
    const request = page.getByRole('region', { name: `Signature request from ${ORIGIN}` });
    const details = await detailsOf(request);
    assert.equal(details['Message (hex)'], '0xdeadbeef00');
    assert.equal(details.Message, undefined);
    await request.getByRole('button', { name: 'Reject' }).click();
    assert.deepEqual(await rejected, { code: 4001, message: 'User rejected the request.' });
    // Gone before the next test looks for a request of the same name.
    await request.waitFor({ state: 'detached' });
  });

  test('a second request of the same origin while one waits is -32002; the first still answers', async () => {
    const first = invoke('personal_sign', ['0x6869', ACCOUNT_0]);
    const request = page.getByRole('region', { name: `Signature request from ${ORIGIN}` });
    await request.waitFor();
    const second = await apiError(invoke('personal_sign', ['0x6869', ACCOUNT_0]));
    assert.equal(second.code, -32002);
    assert.match(second.message, /personal_sign' already pending for origin https:\/\/signing-dapp\.test/);
    await request.getByRole('button', { name: 'Approve' }).click();
    assert.ok(await verifyMessage({ address: ACCOUNT_0, message: 'hi', signature: (await first) as Hex }));
    await request.waitFor({ state: 'detached' });
  });

  test('eth_signTypedData_v4 shows the domain and every field; approved from the keyboard', async () => {
    const typedData = {
      domain: { name: 'Portico Mail', version: '1', chainId: 31337, verifyingContract: demo },
      types: {
        Person: [
          { name: 'name', type: 'string' },
          { name: 'wallet', type: 'address' },
        ],
        Mail: [
          { name: 'from', type: 'Person' },
          { name: 'contents', type: 'string' },
          { name: 'amount', type: 'uint256' },
        ],
      },
      primaryType: 'Mail',
      message: { from: { name: 'Alice', wallet: ACCOUNT_0 }, contents: 'Hi Bob', amount: '1000' },
    } as const;
    const signing = invoke('eth_signTypedData_v4', [ACCOUNT_0, JSON.stringify(typedData)]);
    const request = page.getByRole('region', { name: `Signature request from ${ORIGIN}` });
    const details = await detailsOf(request);
    assert.equal(details['Domain name'], 'Portico Mail');
    assert.equal(details['Domain version'], '1');
    assert.equal(details['Domain chain ID'], '31337');
    assert.equal(details['Domain contract'], demo);
    assert.equal(details['Primary type'], 'Mail');
    assert.equal(details['from.name'], 'Alice');
    assert.equal(details['from.wallet'], ACCOUNT_0);
    assert.equal(details.contents, 'Hi Bob');
    assert.equal(details.amount, '1000');
    await request.getByRole('button', { name: 'Approve' }).focus();
    await page.keyboard.press('Enter');
    const signature = (await signing) as Hex;
    assert.ok(
      await verifyTypedData({
        address: ACCOUNT_0,
        signature,
        ...typedData,
        message: { ...typedData.message, amount: 1000n },
      }),
    );
    // The answered request is gone and focus stays in the requests, not lost on the page's body.
    await request.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'requests-heading');
  });

  test('a call of the demo contract shows its decoded function and arguments; Approve sends it on anvil', async () => {
    const data = encodeFunctionData({ abi: PorticoDemo.abi, functionName: 'store', args: [42n] });
    const sending = invoke('eth_sendTransaction', [{ from: ACCOUNT_0, to: demo, data }]);
    const request = page.getByRole('region', { name: `Transaction request from ${ORIGIN}` });
    const details = await detailsOf(request);
    assert.equal(details.To, demo);
    assert.equal(details.Value, '0 ETH');
    assert.equal(details['Function selector'], toFunctionSelector('store(uint256)'));
    assert.equal(details.Contract, 'PorticoDemo');
    assert.equal(details.Function, 'store(uint256)');
    assert.equal(details['newValue (uint256)'], '42');
    assert.match(details['Gas limit'], /^\d+$/);
    assert.match(details['Max network fee'], / ETH \(.* gwei per gas\)$/);
    assert.equal(await request.getByText(`Call PorticoDemo.store on ${demo}`).count(), 1);
    await assertAccessible(page, 'transaction request');
    await request.getByRole('button', { name: 'Approve' }).click();
    const chain = createPublicClient({ transport: http(anvil.url) });
    const receipt = await chain.waitForTransactionReceipt({
      hash: (await sending) as Hex,
      pollingInterval: 50,
    });
    assert.equal(receipt.status, 'success');
    assert.equal(
      await chain.readContract({ address: demo, abi: PorticoDemo.abi, functionName: 'value' }),
      42n,
    );
    await request.waitFor({ state: 'detached' });
  });

  test('a transfer shows the recipient and the value in ETH; Reject answers 4001 and nothing is sent', async () => {
    const chain = createPublicClient({ transport: http(anvil.url) });
    const nonce = await chain.getTransactionCount({ address: ACCOUNT_1 });
    const rejected = apiError(
      invoke('eth_sendTransaction', [
        { from: ACCOUNT_1, to: ACCOUNT_0, value: `0x${parseEther('0.25').toString(16)}` },
      ]),
    );
    const request = page.getByRole('region', { name: `Transaction request from ${ORIGIN}` });
    const details = await detailsOf(request);
    assert.equal(details.Account, ACCOUNT_1);
    assert.equal(details.To, ACCOUNT_0);
    assert.equal(details.Value, '0.25 ETH');
    assert.equal(details['Function selector'], undefined);
    await request.getByRole('button', { name: 'Reject' }).click();
    assert.deepEqual(await rejected, { code: 4001, message: 'User rejected the request.' });
    assert.equal(await chain.getTransactionCount({ address: ACCOUNT_1 }), nonce);
    await request.waitFor({ state: 'detached' });
  });

  test('a request whose account leaves the wallet while it waits is withdrawn with 4100', async () => {
    const withdrawn = apiError(invoke('personal_sign', ['0x6869', ACCOUNT_1]));
    const request = page.getByRole('region', { name: `Signature request from ${ORIGIN}` });
    await request.waitFor();
    await wallet.replaceAccounts('eip155', [mnemonicToAccount(DEV_MNEMONIC, { addressIndex: 0 })]);
    assert.equal((await withdrawn).code, 4100);
    await request.waitFor({ state: 'detached' });
  });
});
