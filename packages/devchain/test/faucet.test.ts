import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { createPublicClient, http, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import {
  type Anvil,
  createDevFaucet,
  createFaucetHandler,
  type DevFaucet,
  FaucetError,
  type SolanaLedger,
  startAnvil,
  startSolanaLedger,
} from '../src/index.ts';
import { connect, until } from './solana-client.ts';

const SOL = 1_000_000_000n;
const newEvmAddress = () => privateKeyToAddress(generatePrivateKey());
const newSolanaAddress = async () => (await generateKeyPairSigner()).address;

describe('dev faucet on anvil and the Solana dev ledger', () => {
  let anvil: Anvil;
  let ledger: SolanaLedger;
  let faucet: DevFaucet;
  let http0: Server;
  let faucetUrl: string;

  before(async () => {
    anvil = await startAnvil();
    ledger = await startSolanaLedger({ slotMs: 20 });
    faucet = await createDevFaucet({ anvil, solana: ledger });
    const handle = createFaucetHandler(faucet);
    http0 = createServer((request, response) => {
      if (!handle(request, response)) response.writeHead(404).end();
    });
    await new Promise<void>((ok) => http0.listen(0, '127.0.0.1', () => ok()));
    faucetUrl = `http://127.0.0.1:${(http0.address() as AddressInfo).port}/dev/fund`;
  });
  after(async () => {
    http0?.closeAllConnections();
    await new Promise<void>((ok) => (http0 ? http0.close(() => ok()) : ok()));
    await ledger?.stop();
    await anvil?.stop();
  });

  const ethBalance = (address: `0x${string}`) =>
    createPublicClient({ transport: http(anvil.url) }).getBalance({ address });
  const solBalance = async (address: string) =>
    (
      await connect(ledger.url)
        .getBalance(address as never, { commitment: 'processed' })
        .send()
    ).value;

  test('oversized bodies are refused with a clear error, and both servers keep serving', async () => {
    const bigFund = await fetch(faucetUrl, {
      method: 'POST',
      body: JSON.stringify({ address: newEvmAddress(), pad: 'x'.repeat(5000) }),
    });
    assert.equal(bigFund.status, 400);
    assert.deepEqual(await bigFund.json(), {
      error: { code: 'INVALID_REQUEST', message: 'request body too large' },
    });
    const bigRpc = await fetch(ledger.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getSlot',
        params: ['x'.repeat(4 * 1024 * 1024)],
      }),
    });
    assert.equal(bigRpc.status, 413);
    assert.deepEqual(await bigRpc.json(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid request: body too large' },
    });
    const slot = await fetch(ledger.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'getSlot' }),
    });
    assert.equal(((await slot.json()) as { id: number }).id, 2);
    const small = await fetch(faucetUrl, {
      method: 'POST',
      body: JSON.stringify({ address: newEvmAddress() }),
    });
    assert.equal(small.status, 200);
  });

  test('adds 10 ETH by default, and more on every call (a top-up, not a reset)', async () => {
    const address = newEvmAddress();
    const first = await faucet.fund('eip155', address.toLowerCase());
    assert.equal(first.address, address, 'the address comes back checksummed');
    assert.equal(first.chainId, 'eip155:31337');
    assert.equal(first.amount, parseEther('10'));
    assert.equal(await ethBalance(address), parseEther('10'));
    const second = await faucet.fund('eip155', address, parseEther('2.5'));
    assert.equal(second.balance, parseEther('12.5'));
    assert.equal(await ethBalance(address), parseEther('12.5'));
  });

  test('concurrent top-ups of one EVM address all count', async () => {
    const address = newEvmAddress();
    await Promise.all(Array.from({ length: 5 }, () => faucet.fund('eip155', address, parseEther('1'))));
    assert.equal(await ethBalance(address), parseEther('5'));
  });

  test('airdrops 10 SOL by default as a real transfer that shows in the address history', async () => {
    const address = await newSolanaAddress();
    const result = await faucet.fund('solana', address);
    assert.equal(result.chainId, ledger.chainId);
    assert.equal(result.balance, 10n * SOL);
    assert.equal(await solBalance(address), 10n * SOL);
    const rpc = connect(ledger.url);
    const seen = await until('the airdrop in the history', async () => {
      const list = await rpc.getSignaturesForAddress(address, { commitment: 'confirmed' }).send();
      return list.find((entry) => entry.signature === result.signature);
    });
    assert.equal(seen.err, null);
    await faucet.fund('solana', address, 1n);
    assert.equal(await solBalance(address), 10n * SOL + 1n);
  });

  test('fundIfEmpty funds a new address once and leaves one that holds something alone', async () => {
    const evm = newEvmAddress();
    const sol = await newSolanaAddress();
    assert.equal((await faucet.fundIfEmpty('eip155', evm))?.amount, parseEther('10'));
    assert.equal(await faucet.fundIfEmpty('eip155', evm), undefined);
    assert.equal((await faucet.fundIfEmpty('solana', sol))?.amount, 10n * SOL);
    assert.equal(await faucet.fundIfEmpty('solana', sol), undefined);
    assert.equal(await ethBalance(evm), parseEther('10'));
    assert.equal(await solBalance(sol), 10n * SOL);
  });

  test('refuses addresses and amounts it cannot use, with a stable code, and moves nothing', async () => {
    const evm = newEvmAddress();
    const sol = await newSolanaAddress();
    const cases: Array<[Promise<unknown>, string, RegExp]> = [
      [faucet.fund('eip155', '0x1234'), 'INVALID_ADDRESS', /is not an EVM address/],
      [faucet.fund('eip155', sol), 'INVALID_ADDRESS', /is not an EVM address/],
      [faucet.fund('solana', evm), 'INVALID_ADDRESS', /is not a Solana address/],
      [faucet.fund('eip155', evm, 0n), 'INVALID_AMOUNT', /above 0/],
      [faucet.fund('eip155', evm, parseEther('1000001')), 'INVALID_AMOUNT', /at most 1000000 ETH/],
      [faucet.fund('solana', sol, -1n), 'INVALID_AMOUNT', /above 0/],
      [faucet.fund('cosmos' as never, evm), 'NO_CHAIN', /no faucet for namespace "cosmos"/],
    ];
    for (const [attempt, code, message] of cases) {
      await assert.rejects(attempt, (error: unknown) => {
        assert.ok(error instanceof FaucetError);
        assert.equal(error.code, code);
        assert.match(error.message, message);
        return true;
      });
    }
    assert.equal(await ethBalance(evm), 0n);
    assert.equal(await solBalance(sol), 0n);
  });

  test('is refused for an EVM node that is not anvil', async () => {
    // A stand-in for a real node (none runs here): it answers web3_clientVersion as geth does.
    const geth = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ jsonrpc: '2.0', id: 0, result: 'Geth/v1.14.0-stable/linux-amd64/go1.22' }),
      );
    });
    await new Promise<void>((ok) => geth.listen(0, '127.0.0.1', () => ok()));
    try {
      const url = `http://127.0.0.1:${(geth.address() as AddressInfo).port}`;
      await assert.rejects(createDevFaucet({ anvil: { url, chainId: 1 } }), {
        code: 'NOT_A_DEV_CHAIN',
        message: `${url} is not anvil: no faucet there`,
      });
    } finally {
      geth.closeAllConnections();
      await new Promise<void>((ok) => geth.close(() => ok()));
    }
    const evmOnly = await createDevFaucet({ anvil });
    await assert.rejects(evmOnly.fund('solana', await newSolanaAddress()), { code: 'NO_CHAIN' });
    assert.deepEqual(evmOnly.chains, { eip155: 'eip155:31337' });
  });

  test('POST /dev/fund funds the address the body names, in ETH or SOL, and answers errors as JSON', async () => {
    const post = async (body: unknown, init: RequestInit = {}) => {
      const response = await fetch(faucetUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
        ...init,
      });
      return {
        status: response.status,
        cors: response.headers.get('access-control-allow-origin'),
        body: await response.json(),
      };
    };
    const evm = newEvmAddress();
    const funded = await post({ address: evm, amount: '0.5' });
    assert.equal(funded.status, 200);
    assert.equal(funded.cors, '*');
    assert.deepEqual(funded.body, {
      namespace: 'eip155',
      chainId: 'eip155:31337',
      address: evm,
      symbol: 'ETH',
      amount: '0.5',
      balance: '0.5',
      amountBaseUnits: parseEther('0.5').toString(),
      balanceBaseUnits: parseEther('0.5').toString(),
    });
    const sol = await newSolanaAddress();
    const airdrop = await post({ address: sol });
    assert.equal(airdrop.status, 200);
    assert.equal(airdrop.body.amount, '10');
    assert.equal(airdrop.body.symbol, 'SOL');
    assert.match(airdrop.body.signature, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    for (const [body, code] of [
      [{}, 'INVALID_ADDRESS'],
      [{ address: 'nope' }, 'INVALID_ADDRESS'],
      [{ address: evm, amount: 'lots' }, 'INVALID_AMOUNT'],
      [{ address: evm, amount: '1.0000000000000000001' }, 'INVALID_AMOUNT'],
      [{ address: sol, amount: '0.0000000001' }, 'INVALID_AMOUNT'],
      ['not json', 'INVALID_REQUEST'],
      [[evm], 'INVALID_REQUEST'],
    ] as const) {
      const refused = await post(body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.error.code, code);
    }
    const get = await fetch(faucetUrl);
    assert.equal(get.status, 405);
    assert.equal((await fetch(faucetUrl.replace('/dev/fund', '/dev/other'))).status, 404);
    assert.equal(await ethBalance(evm), parseEther('0.5'), 'the refused calls moved nothing');
  });
});
