import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  compileTransaction,
  createNoopSigner,
  createSignableMessage,
  createSolanaRpc,
  createTransactionMessage,
  devnet,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getPublicKeyFromAddress,
  getSignatureFromTransaction,
  getTransactionDecoder,
  getTransactionEncoder,
  isMessagePartialSigner,
  isTransactionPartialSigner,
  lamports,
  pipe,
  type Signature,
  type SignatureBytes,
  setTransactionMessageFeePayer,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Transaction,
  verifySignature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getEd25519PrivKey, randomPrivKey } from '../src/protocol.ts';
import { createSolanaProvider, type SolanaProvider, SolanaWallet } from '../src/providers/solana/index.ts';
import { type ChainStack, recordingFetch, startChainStack, waitForSignature } from './chain-stack.ts';

// The Solana provider on its own (a key getter and a chain config, no auth service) against the
// real dev ledger behind a real Portico gateway, checked with @solana/kit as an app would.
describe('solana provider (dev ledger behind the gateway)', { timeout: 120_000 }, () => {
  let stack: ChainStack;
  let rpcTarget: string;
  let rpc: ReturnType<typeof createSolanaRpc>;
  const ed25519Key = getEd25519PrivKey(randomPrivKey());
  let user: Address;
  let recipient: Address;

  const provider = (getKey: () => string = () => ed25519Key, fetcher?: typeof fetch, target = rpcTarget) =>
    createSolanaProvider({
      getEd25519PrivKey: getKey,
      chainConfig: { chainNamespace: 'solana', chainId: stack.solana?.chainId ?? '', rpcTarget: target },
      fetch: fetcher,
    });

  /** An unsigned transfer from the user, compiled to a kit Transaction (what a Web3Auth app hands the provider). */
  async function transfer(amount: bigint): Promise<Transaction> {
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(user, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) =>
        appendTransactionMessageInstructions(
          [getTransferSolInstruction({ source: createNoopSigner(user), destination: recipient, amount })],
          m,
        ),
    );
    return compileTransaction(message);
  }

  const seen = (signature: string, who: Address) => waitForSignature(rpc, signature, who);

  before(async () => {
    stack = await startChainStack({ solana: true });
    rpcTarget = (await stack.newKey()).url('solana-local');
    rpc = createSolanaRpc(devnet(rpcTarget));
    user = (await provider().getAccounts())[0] as Address;
    recipient = (await generateKeyPairSigner()).address;
    // Funding is set-up, straight on the ledger.
    await stack.airdrop(user, 5_000_000_000);
  });
  after(async () => {
    await stack?.close();
  });

  it('gives the address of the ed25519 key, and signMessage a signature kit verifies', async () => {
    const p = provider();
    assert.equal(user, address(user));
    assert.deepEqual(await p.request({ method: 'requestAccounts' }), [user]);
    const bytes = new TextEncoder().encode('hello solana');
    const signature = (await p.request({
      method: 'signMessage',
      params: { message: bytes },
    })) as SignatureBytes;
    assert.equal(signature.length, 64);
    assert.equal(await verifySignature(await getPublicKeyFromAddress(user), signature, bytes), true);
    assert.equal(
      await verifySignature(
        await getPublicKeyFromAddress(user),
        signature,
        new TextEncoder().encode('other'),
      ),
      false,
    );
  });

  it('signAndSendTransaction broadcasts a transfer through the gateway, visible with getSignaturesForAddress', async () => {
    const { signature } = await new SolanaWallet(provider()).signAndSendTransaction(
      await transfer(1_000_000n),
    );
    assert.equal(await seen(signature, user), true);
    assert.equal(await seen(signature, recipient), true);
    const { value } = await rpc.getBalance(recipient, { commitment: 'confirmed' }).send();
    assert.equal(value, lamports(1_000_000n));
  });

  it('signTransaction returns the same form it was given (kit Transaction or wire bytes), signed by the user', async () => {
    const p = provider();
    const tx = await transfer(5n);
    const signed = await p.signTransaction(tx);
    assert.equal(tx.signatures[user], null, 'the input is not changed');
    const signature = signed.signatures[user] as SignatureBytes;
    assert.equal(
      await verifySignature(await getPublicKeyFromAddress(user), signature, signed.messageBytes),
      true,
    );
    const wire = await p.signTransaction(new Uint8Array(getTransactionEncoder().encode(tx)));
    assert.ok(wire instanceof Uint8Array);
    assert.deepEqual(getTransactionDecoder().decode(wire).signatures[user], signature);
    // A transaction the user is not a signer of is refused rather than sent unsigned.
    const stranger = (await generateKeyPairSigner()).address;
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const foreign = compileTransaction(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(stranger, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      ),
    );
    await assert.rejects(p.signTransaction(foreign), { code: -32602, message: /is not a signer/ });
  });

  it('its @solana/kit signer signs messages and transactions that kit apps build and send themselves', async () => {
    const signer = provider().getSigner();
    assert.equal(signer.address, user);
    assert.ok(isTransactionPartialSigner(signer) && isMessagePartialSigner(signer));
    const [dictionary] = await signer.signMessages([createSignableMessage('kit message')]);
    assert.equal(
      await verifySignature(
        await getPublicKeyFromAddress(user),
        dictionary[user],
        new TextEncoder().encode('kit message'),
      ),
      true,
    );
    const { value: lifetime } = await rpc.getLatestBlockhash().send();
    const signed = await signTransactionMessageWithSigners(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayerSigner(signer, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
        (m) =>
          appendTransactionMessageInstructions(
            [getTransferSolInstruction({ source: signer, destination: recipient, amount: 3n })],
            m,
          ),
      ),
    );
    const signature: Signature = await rpc
      .sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' })
      .send();
    assert.equal(signature, getSignatureFromTransaction(signed));
    assert.equal(await seen(signature, user), true);
  });

  it('passes reads through, refuses key export (4200) and answers 4900 once the key is gone', async () => {
    let key = ed25519Key;
    const p = provider(() => key);
    const balance = (await p.request({
      method: 'getBalance',
      params: [user, { commitment: 'confirmed' }],
    })) as {
      value: number;
    };
    assert.ok(balance.value > 0);
    await assert.rejects(p.request({ method: 'solanaPrivateKey' }), { code: 4200 });
    const signer = p.getSigner();
    const events: unknown[] = [];
    p.on('accountsChanged', (accounts) => events.push(['accountsChanged', accounts]));
    p.on('disconnect', (error) => events.push(['disconnect', error.code]));
    key = '';
    await assert.rejects(p.request({ method: 'signMessage', params: { message: new Uint8Array([1]) } }), {
      code: 4900,
    });
    await assert.rejects(signer.signMessages([createSignableMessage('late')]), { code: 4900 });
    assert.deepEqual(await p.getAccounts(), []);
    assert.deepEqual(events, [
      ['accountsChanged', []],
      ['disconnect', 4900],
    ]);
    // Another user's key: a signer made for the first user refuses (4100) instead of signing as someone else.
    key = getEd25519PrivKey(randomPrivKey());
    await assert.rejects(signer.signMessages([createSignableMessage('wrong user')]), { code: 4100 });
  });

  it('every call of the provider went through the gateway and was charged to the key', async () => {
    const fresh = await stack.newKey();
    const calls = recordingFetch();
    const p: SolanaProvider = provider(() => ed25519Key, calls.fetch, fresh.url('solana-local'));
    const lifetime = (await p.request({
      method: 'getLatestBlockhash',
      params: [{ commitment: 'confirmed' }],
    })) as {
      value: Parameters<typeof setTransactionMessageLifetimeUsingBlockhash>[0];
    };
    const tx = compileTransaction(
      pipe(
        createTransactionMessage({ version: 0 }),
        (m) => setTransactionMessageFeePayer(user, m),
        (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime.value, m),
        (m) =>
          appendTransactionMessageInstructions(
            [
              getTransferSolInstruction({
                source: createNoopSigner(user),
                destination: recipient,
                amount: 2n,
              }),
            ],
            m,
          ),
      ),
    );
    const { signature } = await p.signAndSendTransaction(tx);
    await p.request({ method: 'getSignatureStatuses', params: [[signature]] });
    await p.signMessage('local only');
    const sent = calls.counts();
    const charged = await stack.usage(fresh.id);
    assert.deepEqual(
      [...charged.entries()].map(([method, row]) => [method, row.requests]).sort(),
      [...sent.entries()].sort(),
    );
    assert.deepEqual([...sent.keys()].sort(), [
      'getLatestBlockhash',
      'getSignatureStatuses',
      'sendTransaction',
    ]);
    for (const [method, row] of charged) assert.ok(row.credits > 0, `${method} cost credits`);
  });
});
