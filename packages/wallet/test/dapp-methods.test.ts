import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Anvil, startAnvil } from '@portico/devchain';
import { createWalletBridge, createWebSocketTransport, type WalletBridge } from '@portico/multichain';
import { base64 } from '@scure/base';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getTransactionDecoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { verifySignIn } from '@solana/wallet-standard-util';
import {
  createPublicClient,
  createWalletClient,
  custom,
  encodeFunctionData,
  type Hex,
  http,
  maxUint256,
  parseAbi,
  parseEther,
} from 'viem';
import { foundry } from 'viem/chains';
import { startWallet, verifySolanaSignature, type Wallet } from '../src/index.ts';
import { answer, stopAnvil, waitForApproval } from './helpers.ts';

// The methods dapps call beyond the Multichain API's four, through the browser bridge's EIP-1193
// provider and Solana Wallet Standard wallet, answered on the approval API as the page would:
// EIP-5792 batches mined on anvil (viem's own actions), wallet_watchAsset checked against the
// contract, wallet_addEthereumChain, Sign-In With Solana checked by Solana's own verifier
// (@solana/wallet-standard-util), several Solana transactions in one approval, and the warnings
// shown above what people should not sign blind.
const EVM = 'eip155:31337';
const SOLANA = 'solana:PorticoLocal11111111111111111111';
const ORIGIN = 'https://dapp-methods.test';
const ICON = 'data:image/svg+xml;base64,PHN2Zy8+' as const;
/** Runtime code whose every call returns 18 (so `decimals()` answers 18). */
const RETURNS_18 = '0x601260005260206000f3';
const TOKEN = '0x00000000000000000000000000000000000a11ce';
const FRESH_CONTRACT = '0x00000000000000000000000000000000000b0b00';

describe('what dapps call beyond the Multichain API, on anvil', () => {
  let anvil: Anvil;
  let wallet: Wallet;
  let bridge: WalletBridge;

  before(async () => {
    anvil = await startAnvil();
    for (const target of [TOKEN, FRESH_CONTRACT])
      await createPublicClient({ transport: http(anvil.url) }).request({
        method: 'anvil_setCode' as never,
        params: [target, RETURNS_18] as never,
      });
    wallet = await startWallet({
      chains: [
        { chainId: EVM, rpcUrl: anvil.url },
        { chainId: SOLANA, rpcUrl: 'http://127.0.0.1:9' },
      ],
      accountCount: 2,
    });
    bridge = createWalletBridge({
      transport: createWebSocketTransport({ url: wallet.wsUrl, origin: ORIGIN }),
      chains: [EVM, SOLANA],
      name: 'Portico',
      icon: ICON,
      origin: ORIGIN,
    });
    await bridge.ready;
    const connecting = bridge.ethereum.request({ method: 'eth_requestAccounts' });
    const ask = await waitForApproval(wallet, 'connection');
    await answer(wallet, ask.id, {
      approved: true,
      scopes: [EVM],
      accounts: { eip155: [wallet.accounts.eip155[0]] },
    });
    await connecting;
  });
  after(async () => {
    await bridge?.close();
    await wallet?.close();
    await stopAnvil(anvil);
  });

  const evm = () => {
    const [account] = wallet.accounts.eip155 as Hex[];
    return createWalletClient({ account, chain: foundry, transport: custom(bridge.ethereum) });
  };

  test('EIP-5792: two calls approved once, sent in turn and confirmed; not atomic, as the capabilities say', async () => {
    const client = evm();
    assert.deepEqual(await client.getCapabilities({ chainId: 31337 }), { atomic: { status: 'unsupported' } });
    const [to1, to2] = [
      '0x1000000000000000000000000000000000000001',
      '0x1000000000000000000000000000000000000002',
    ] as const;
    const sending = client.sendCalls({
      calls: [
        { to: to1, value: parseEther('0.25') },
        { to: to2, value: parseEther('0.5') },
      ],
    });
    const ask = await waitForApproval(wallet, 'signature');
    assert.equal(ask.method, 'wallet_sendCalls');
    assert.equal(ask.details.summary, 'Send 2 calls one after another (0.75 ETH in all)');
    await answer(wallet, ask.id, { approved: true });
    const { id } = await sending;
    const status = await client.waitForCallsStatus({ id, pollingInterval: 50 });
    assert.equal(status.status, 'success');
    assert.equal(status.atomic, false);
    assert.equal(status.receipts?.length, 2);
    const chain = createPublicClient({ transport: http(anvil.url) });
    assert.equal(await chain.getBalance({ address: to1 }), parseEther('0.25'));
    assert.equal(await chain.getBalance({ address: to2 }), parseEther('0.5'));

    await assert.rejects(
      client.sendCalls({ forceAtomic: true, calls: [{ to: to1, value: 1n }] }),
      (error: Error & { code?: number; cause?: { code?: number } }) =>
        (error.cause?.code ?? error.code) === 5760 || /atomic/.test(error.message),
    );
    await assert.rejects(
      bridge.ethereum.request({ method: 'wallet_getCallsStatus', params: ['0xunknown'] }),
      (error: { code?: number }) => error.code === 5730,
    );
  });

  test('warnings above an unlimited approval to a contract the wallet never sent to, a hash, and a permit', async () => {
    const [account] = wallet.accounts.eip155 as Hex[];
    const data = encodeFunctionData({
      abi: parseAbi(['function approve(address spender, uint256 amount)']),
      args: ['0x2000000000000000000000000000000000000002', maxUint256],
    });
    const approving = bridge.ethereum.request({
      method: 'eth_sendTransaction',
      params: [{ from: account, to: FRESH_CONTRACT, data }],
    });
    const ask = await waitForApproval(wallet, 'signature');
    assert.deepEqual(ask.details.warnings, [
      'This lets 0x2000000000000000000000000000000000000002 spend an unlimited amount of this token from your account, until you revoke it.',
      `${FRESH_CONTRACT} is a contract this wallet has never sent to and does not know. Check it is the one the site says.`,
    ]);
    await answer(wallet, ask.id, { approved: false });
    await assert.rejects(approving, (error: { code?: number }) => error.code === 4001);

    const hash = `0x${'ab'.repeat(32)}`;
    const signing = bridge.ethereum.request({ method: 'personal_sign', params: [hash, account] });
    const hashAsk = await waitForApproval(wallet, 'signature');
    assert.match(hashAsk.details.warnings?.[0] ?? '', /32 bytes of data/);
    await answer(wallet, hashAsk.id, { approved: false });
    await assert.rejects(signing);

    const text = bridge.ethereum.request({ method: 'personal_sign', params: ['0x6869', account] });
    const textAsk = await waitForApproval(wallet, 'signature');
    assert.equal(textAsk.details.warnings, undefined, 'a short text message carries no warning');
    await answer(wallet, textAsk.id, { approved: true });
    await text;

    const permit = {
      domain: { name: 'Token', version: '1', chainId: 31337, verifyingContract: TOKEN },
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: account, spender: TOKEN, value: maxUint256.toString(), nonce: 0, deadline: 1 },
    };
    const permitting = bridge.ethereum.request({
      method: 'eth_signTypedData_v4',
      params: [account, JSON.stringify(permit)],
    });
    const permitAsk = await waitForApproval(wallet, 'signature');
    assert.deepEqual(permitAsk.details.warnings, [
      `This permit lets ${TOKEN} spend an unlimited amount of this token from your account, without another signature.`,
    ]);
    await answer(wallet, permitAsk.id, { approved: false });
    await assert.rejects(permitting);
  });

  test('wallet_watchAsset is checked against the contract, then asked; wallet_addEthereumChain only switches', async () => {
    const watch = (options: Record<string, unknown>) =>
      bridge.ethereum.request({ method: 'wallet_watchAsset', params: { type: 'ERC20', options } });
    await assert.rejects(
      watch({ address: TOKEN, symbol: 'TKN', decimals: 6 }),
      (error: { code?: number; message: string }) =>
        error.code === -32602 && /reports 18 decimals, not 6/.test(error.message),
    );
    await assert.rejects(
      watch({ address: '0x3000000000000000000000000000000000000003', symbol: 'TKN', decimals: 18 }),
      (error: { code?: number; message: string }) =>
        error.code === -32602 && /no contract/.test(error.message),
    );
    const watching = watch({ address: TOKEN, symbol: 'TKN', decimals: 18 });
    const ask = await waitForApproval(wallet, 'signature');
    assert.equal(ask.details.title, 'Token request');
    await answer(wallet, ask.id, { approved: true });
    assert.equal(await watching, true);

    assert.equal(
      await bridge.ethereum.request({ method: 'wallet_addEthereumChain', params: [{ chainId: '0x7a69' }] }),
      null,
    );
    await assert.rejects(
      bridge.ethereum.request({ method: 'wallet_addEthereumChain', params: [{ chainId: '0x1' }] }),
      (error: { code?: number; message: string }) =>
        error.code === 4902 && /serves only eip155:31337/.test(error.message),
    );
  });

  test('Sign-In With Solana connects, signs the message the input describes, and passes Solana’s verifier', async () => {
    const signIn = bridge.solana.features['solana:signIn'].signIn;
    const input = {
      statement: 'Sign in to the dapp-methods test',
      nonce: 'n0nce1234',
      issuedAt: '2026-11-27T10:00:00.000Z',
      uri: ORIGIN,
      resources: ['https://dapp-methods.test/terms'],
    };
    const signing = signIn(input);
    const connection = await waitForApproval(wallet, 'connection');
    await answer(wallet, connection.id, {
      approved: true,
      scopes: [SOLANA],
      accounts: { solana: [wallet.accounts.solana[0]] },
    });
    const ask = await waitForApproval(wallet, 'signature');
    assert.equal(ask.method, 'signIn');
    assert.equal(ask.details.warnings, undefined);
    await answer(wallet, ask.id, { approved: true });
    const [output] = await signing;
    assert.ok(verifySignIn(input, output), 'Solana’s verifier accepts the sign-in');
    assert.ok(verifySignIn({ ...input, domain: 'dapp-methods.test' }, output));
    assert.equal(verifySignIn({ ...input, nonce: 'other' }, output), false);
    assert.equal(
      new TextDecoder().decode(output.signedMessage),
      [
        'dapp-methods.test wants you to sign in with your Solana account:',
        wallet.accounts.solana[0],
        '',
        'Sign in to the dapp-methods test',
        '',
        `URI: ${ORIGIN}`,
        'Nonce: n0nce1234',
        'Issued At: 2026-11-27T10:00:00.000Z',
        'Resources:',
        '- https://dapp-methods.test/terms',
      ].join('\n'),
    );

    const phishing = signIn({ domain: 'bank.example', nonce: 'x1234567' });
    const warned = await waitForApproval(wallet, 'signature');
    assert.match(
      warned.details.warnings?.[0] ?? '',
      /for bank\.example, but https:\/\/dapp-methods\.test asks/,
    );
    await answer(wallet, warned.id, { approved: false });
    await assert.rejects(phishing);

    await assert.rejects(
      signIn({ statement: 'line one\nURI: https://evil.example' }),
      (error: { code?: number }) => error.code === -32602,
    );
  });

  test('several Solana transactions of one account are approved once and each is signed', async () => {
    const [payer] = wallet.accounts.solana;
    const account = bridge.solana.accounts.find((candidate) => candidate.address === payer);
    assert.ok(account, 'connected in the previous test');
    const wire = (memo: string) =>
      base64.decode(
        getBase64EncodedWireTransaction(
          compileTransaction(
            pipe(
              createTransactionMessage({ version: 0 }),
              (m) => setTransactionMessageFeePayer(address(payer), m),
              (m) =>
                setTransactionMessageLifetimeUsingBlockhash(
                  { blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 100n },
                  m,
                ),
              (m) =>
                appendTransactionMessageInstruction(
                  {
                    programAddress: address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'),
                    data: new TextEncoder().encode(memo),
                  },
                  m,
                ),
            ),
          ),
        ),
      );
    const signing = bridge.solana.features['solana:signTransaction'].signTransaction(
      { account, transaction: wire('one') },
      { account, transaction: wire('two') },
      { account, transaction: wire('three') },
    );
    const ask = await waitForApproval(wallet, 'signature');
    assert.equal(ask.method, 'signAllTransactions');
    assert.equal(ask.details.summary, 'Sign 3 transactions');
    await answer(wallet, ask.id, { approved: true });
    const signed = await signing;
    assert.equal(signed.length, 3);
    for (const { signedTransaction } of signed) {
      const tx = getTransactionDecoder().decode(signedTransaction);
      const signature = tx.signatures[address(payer)];
      assert.ok(signature);
      assert.ok(
        verifySolanaSignature(
          new Uint8Array(signature),
          new Uint8Array(tx.messageBytes),
          new Uint8Array(account.publicKey),
        ),
      );
    }
  });
});
