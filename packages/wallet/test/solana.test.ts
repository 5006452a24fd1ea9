import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { getMultichainClient, MultichainApiError } from '@metamask/multichain-api-client';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { getPorticoTransport } from '@portico/multichain';
import { base58, base64 } from '@scure/base';
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
import {
  createKeyring,
  deriveEd25519PrivateKey,
  startWallet,
  verifySolanaSignature,
  type Wallet,
} from '../src/index.ts';

const SCOPE = 'solana:PorticoLocal11111111111111111111';

test('SLIP-0010 ed25519 derivation matches the specification test vector 1', () => {
  const seed = hexToBytes('000102030405060708090a0b0c0d0e0f');
  assert.equal(
    bytesToHex(deriveEd25519PrivateKey(seed, 'm')),
    '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7',
  );
  assert.equal(
    bytesToHex(deriveEd25519PrivateKey(seed, "m/0'")),
    '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3',
  );
  assert.equal(
    bytesToHex(deriveEd25519PrivateKey(seed, "m/0'/1'/2'/2'/1000000000'")),
    '8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793',
  );
  assert.throws(() => deriveEd25519PrivateKey(seed, 'm/0'), /hardened/);
});

function transferLikeTransaction(payer: string): string {
  const message = pipe(
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
          data: new TextEncoder().encode('portico'),
        },
        m,
      ),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

describe('Solana signing through the Multichain API', () => {
  // The Solana dev ledger's RPC lives in @portico/devchain on another branch; until it lands, the
  // broadcast endpoint is a small HTTP server that checks the signed transaction and answers
  // sendTransaction the way a Solana RPC does (the signature of the fee payer, base58).
  let rpc: Server;
  let wallet: Wallet;
  const sent: unknown[] = [];
  const keyring = createKeyring();
  const [payer, other] = keyring.solana;

  before(async () => {
    rpc = createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const { id, method, params } = JSON.parse(body);
      sent.push({ method, params });
      const tx = getTransactionDecoder().decode(base64.decode(params[0]));
      const signature = Object.values(tx.signatures)[0];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: base58.encode(new Uint8Array(signature ?? [])) }));
    });
    await new Promise<void>((resolve) => rpc.listen(0, '127.0.0.1', resolve));
    wallet = await startWallet({
      chains: [{ chainId: SCOPE, rpcUrl: `http://127.0.0.1:${(rpc.address() as AddressInfo).port}` }],
      autoApprove: true,
      accountCount: 2,
    });
  });
  after(async () => {
    await wallet?.close();
    await new Promise((resolve) => rpc?.close(resolve));
  });

  test('signMessage, signTransaction and signAndSendTransaction sign with the session account', async () => {
    const client = getMultichainClient({
      transport: getPorticoTransport({ url: wallet.wsUrl, origin: 'https://solana-dapp.test' }),
    });
    const session = await client.createSession({
      optionalScopes: { [SCOPE]: { methods: ['signMessage'], notifications: [] } },
    });
    assert.deepEqual(session.sessionScopes[SCOPE as `${string}:${string}`].accounts, [
      `${SCOPE}:${payer.address}`,
      `${SCOPE}:${other.address}`,
    ]);
    assert.deepEqual(session.sessionScopes[SCOPE as `${string}:${string}`].methods, [
      'signMessage',
      'signTransaction',
      'signAndSendTransaction',
      'signAllTransactions',
      'signIn',
    ]);

    const message = new TextEncoder().encode('hello solana');
    const signed = (await client.invokeMethod({
      scope: SCOPE as never,
      request: {
        method: 'signMessage',
        params: { account: { address: payer.address }, message: base64.encode(message) },
      } as never,
    })) as { signature: string; signedMessage: string; signatureType: string };
    assert.equal(signed.signatureType, 'ed25519');
    assert.ok(verifySolanaSignature(base58.decode(signed.signature), message, base58.decode(payer.address)));

    const wire = transferLikeTransaction(payer.address);
    const { signedTransaction } = (await client.invokeMethod({
      scope: SCOPE as never,
      request: {
        method: 'signTransaction',
        params: { account: { address: payer.address }, transaction: wire, scope: SCOPE },
      } as never,
    })) as { signedTransaction: string };
    const tx = getTransactionDecoder().decode(base64.decode(signedTransaction));
    const signature = tx.signatures[address(payer.address)];
    assert.ok(signature);
    assert.ok(
      verifySolanaSignature(
        new Uint8Array(signature),
        new Uint8Array(tx.messageBytes),
        base58.decode(payer.address),
      ),
    );

    const sentResult = (await client.invokeMethod({
      scope: SCOPE as never,
      request: {
        method: 'signAndSendTransaction',
        params: { account: { address: payer.address }, transaction: wire, scope: SCOPE },
      } as never,
    })) as { signature: string };
    assert.equal(sentResult.signature, base58.encode(new Uint8Array(signature)));
    assert.equal((sent.at(-1) as { method: string }).method, 'sendTransaction');

    await assert.rejects(
      Promise.resolve(
        client.invokeMethod({
          scope: SCOPE as never,
          request: {
            method: 'signTransaction',
            params: { account: { address: other.address }, transaction: wire, scope: SCOPE },
          } as never,
        }),
      ),
      (error: unknown) => error instanceof MultichainApiError && /not a signer/.test(error.message),
    );
    await client.revokeSession({});
  });

  test('an account the session does not grant is 4100', async () => {
    const client = getMultichainClient({
      transport: getPorticoTransport({ url: wallet.wsUrl, origin: 'https://solana-dapp-2.test' }),
    });
    await client.createSession({ optionalScopes: { [SCOPE]: { methods: [], notifications: [] } } });
    await assert.rejects(
      Promise.resolve(
        client.invokeMethod({
          scope: SCOPE as never,
          request: {
            method: 'signMessage',
            params: { account: { address: '11111111111111111111111111111111' }, message: 'aGk=' },
          } as never,
        }),
      ),
      (error: unknown) =>
        error instanceof MultichainApiError && (error.cause as { code: number }).code === 4100,
    );
    await client.revokeSession({});
  });
});
