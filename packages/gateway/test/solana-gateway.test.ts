import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type SolanaLedger,
  signInstructionsBase64,
  startSolanaLedger,
  transferInstruction,
} from '@portico/devchain';
import {
  address,
  createSolanaRpc,
  devnet,
  generateKeyPairSigner,
  getBase58Decoder,
  lamports,
} from '@solana/kit';
import pino from 'pino';
import { type Gateway, parseConfig, startGateway } from '../src/index.ts';

// The embedded Solana ledger behind the gateway, driven by @solana/kit through `{base}/v3/<KEY>`.
describe('gateway on a Solana network', () => {
  let ledger: SolanaLedger;
  let gateway: Gateway;
  let key: string;
  let endpoint: string;
  let rpc: ReturnType<typeof connect>;
  const connect = (url: string) => createSolanaRpc(devnet(url));

  before(async () => {
    ledger = await startSolanaLedger({ seed: true, slotMs: 20 });
    const config = parseConfig({
      port: 0,
      networks: [
        {
          name: 'solana-local',
          kind: 'solana',
          chainId: ledger.chainId,
          upstreams: [ledger.url],
          passthroughCost: 10,
        },
      ],
    });
    gateway = await startGateway(config, { logger: pino({ level: 'silent' }) });
    key = (await gateway.keys.create({ name: 'solana test', dailyCredits: 1_000_000 })).key;
    endpoint = `${gateway.networks[0].baseUrl}/v3/${key}`;
    rpc = connect(endpoint);
  });

  after(async () => {
    await gateway?.close();
    await ledger?.stop();
  });

  async function post(body: unknown, url = endpoint) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      remaining: Number(response.headers.get('x-credits-remaining')),
      body: (await response.json()) as {
        result?: unknown;
        error?: { code: number; message: string; data?: unknown };
      },
    };
  }
  const call = (method: string, params: unknown[]) => post({ jsonrpc: '2.0', id: 1, method, params });

  test('the network is listed with its CAIP-2 chain id', () => {
    assert.deepEqual(
      gateway.networks.map((n) => [n.name, n.kind, n.chainId]),
      [['solana-local', 'solana', ledger.chainId]],
    );
  });

  test('getSignaturesForAddress costs 160 credits and returns the ledger history unchanged', async () => {
    const alice = address(ledger.devAccounts[0].address);
    const first = await call('getSignaturesForAddress', [alice, { commitment: 'finalized' }]);
    const second = await call('getSignaturesForAddress', [alice, { commitment: 'finalized', limit: 2 }]);
    assert.equal(first.remaining - second.remaining, 160);
    const direct = await createSolanaRpc(ledger.url)
      .getSignaturesForAddress(alice, { commitment: 'finalized' })
      .send();
    const viaGateway = await rpc.getSignaturesForAddress(alice, { commitment: 'finalized' }).send();
    assert.deepEqual(viaGateway, direct);
    assert.ok(viaGateway.some((e) => e.memo === '[7] thanks!'));
    assert.ok(viaGateway.some((e) => e.err !== null));
    assert.equal((second.body.result as unknown[]).length, 2);
  });

  test('every invalid parameter is refused with -32602 before forwarding, and nothing is charged', async () => {
    const alice = ledger.devAccounts[0].address;
    const signature = getBase58Decoder().decode(new Uint8Array(64).fill(1));
    const { remaining: start } = await call('getHealth', []);
    const cases: [unknown[], string][] = [
      [[], 'params[0] (address)'],
      [['not an address'], 'params[0] (address)'],
      [[signature], 'params[0] (address)'],
      [[alice, 'finalized'], 'params[1] (config)'],
      [[alice, { encoding: 'json' }], 'params[1].encoding'],
      [[alice, { commitment: 'processed' }], 'Method does not support commitment below `confirmed`'],
      [[alice, { commitment: 'max!' }], 'params[1].commitment'],
      [[alice, { minContextSlot: -1 }], 'params[1].minContextSlot'],
      [[alice, { limit: 0 }], 'params[1].limit'],
      [[alice, { limit: 1001 }], 'params[1].limit'],
      [[alice, { before: alice }], 'params[1].before'],
      [[alice, { until: 'x' }], 'params[1].until'],
      [[alice, {}, {}], 'at most 2 parameters'],
    ];
    for (const [params, fragment] of cases) {
      const answer = await call('getSignaturesForAddress', params);
      assert.equal(answer.body.error?.code, -32602, JSON.stringify(params));
      assert.ok(answer.body.error?.message.includes(fragment), `${answer.body.error?.message} ~ ${fragment}`);
    }
    const { remaining: end } = await call('getHealth', []);
    assert.equal(start - end, 10, 'only the second getHealth (10 credits) was charged');
  });

  test('other Solana methods pass through at the configured cost; unknown ones are -32601', async () => {
    const health = await call('getHealth', []);
    const genesis = await call('getGenesisHash', []);
    assert.equal(health.body.result, 'ok');
    assert.equal(genesis.body.result, ledger.genesisHash);
    assert.equal(health.remaining - genesis.remaining, 10);
    const unknown = await call('eth_blockNumber', []);
    assert.equal(unknown.body.error?.code, -32601);
  });

  test('a kit client funds, sends and reads history through the gateway alone', async () => {
    const sender = await generateKeyPairSigner();
    const receiver = await generateKeyPairSigner();
    const airdrop = await rpc.requestAirdrop(sender.address, lamports(2_000_000_000n)).send();
    const statusOf = async (signature: typeof airdrop) => {
      for (let i = 0; i < 3000; i++) {
        const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
        if (status?.confirmationStatus === 'confirmed' || status?.confirmationStatus === 'finalized')
          return status;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`gave up waiting for ${signature}`);
    };
    await statusOf(airdrop);
    const { value: lifetime } = await rpc.getLatestBlockhash({ commitment: 'processed' }).send();
    const wire = (await signInstructionsBase64(
      sender,
      [transferInstruction(sender, receiver.address, 1_000_000_000n)],
      lifetime,
    )) as Parameters<typeof rpc.sendTransaction>[0];
    const transfer = await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    assert.equal((await statusOf(transfer)).err, null);
    const history = await rpc.getSignaturesForAddress(sender.address, { commitment: 'confirmed' }).send();
    assert.deepEqual(
      history.map((e) => e.signature),
      [transfer, airdrop],
    );
    assert.equal(
      (await rpc.getBalance(receiver.address, { commitment: 'confirmed' }).send()).value,
      1_000_000_000n,
    );
  });

  test('u64 values beyond 2^53 reach the client exactly (rentEpoch)', async () => {
    const alice = address(ledger.devAccounts[0].address);
    const account = await rpc.getAccountInfo(alice, { encoding: 'base64', commitment: 'confirmed' }).send();
    assert.equal((account.value as { rentEpoch?: bigint } | null)?.rentEpoch, 18446744073709551615n);
    const direct = await createSolanaRpc(ledger.url).getAccountInfo(alice, { encoding: 'base64' }).send();
    assert.equal(account.value?.lamports, direct.value?.lamports);
  });

  test('integers beyond 2^53 in a request are refused before forwarding, free; the ledger refusing a parameter is free too', async () => {
    const send = async (text: string) => {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      return {
        remaining: Number(response.headers.get('x-credits-remaining')),
        body: (await response.json()) as { id: number; error?: { code: number; message: string } },
      };
    };
    const { remaining: start } = await call('getHealth', []);
    const alice = ledger.devAccounts[0].address;
    for (const text of [
      '{"jsonrpc":"2.0","id":7,"method":"getMinimumBalanceForRentExemption","params":[18446744073709551615]}',
      `{"jsonrpc":"2.0","id":7,"method":"getSignaturesForAddress","params":["${alice}",{"minContextSlot":12345678901234567890}]}`,
      `{"jsonrpc":"2.0","id":7,"method":"getBalance","params":["${alice}",{"minContextSlot":12345678901234567890}]}`,
      // Written with an exponent: a double would forward 12345678901234567000 all the same.
      `{"jsonrpc":"2.0","id":7,"method":"getSignaturesForAddress","params":["${alice}",{"minContextSlot":1.2345678901234567890e19}]}`,
    ]) {
      const { body } = await send(text);
      assert.equal(body.id, 7);
      assert.equal(body.error?.code, -32602, text);
      assert.match(
        body.error?.message ?? '',
        /12345678901234567890|18446744073709551615|1\.2345678901234567890e19/,
        'the number as it was sent',
      );
    }
    // A parameter the gateway lets through and the ledger refuses (-32602): refunded.
    const refusedByLedger = await send(
      `{"jsonrpc":"2.0","id":7,"method":"getBalance","params":["${alice}",{"minContextSlot":-1}]}`,
    );
    assert.equal(refusedByLedger.body.error?.code, -32602);
    const { remaining: end } = await call('getHealth', []);
    assert.equal(start - end, 10, 'only the getHealth after them was charged');
  });

  test("the node's own Solana errors pass through with their codes", async () => {
    const alice = ledger.devAccounts[0].address;
    const answer = await call('getSignaturesForAddress', [alice, { minContextSlot: 10_000_000 }]);
    assert.equal(answer.body.error?.code, -32016);
    assert.equal(answer.body.error?.message, 'Minimum context slot has not been reached');
    assert.equal(
      typeof (answer.body.error?.data as { contextSlot?: number } | undefined)?.contextSlot,
      'number',
    );
  });

  test("the gateway's own errors on a Solana network never use -32005 or -32016", async () => {
    const wrongKey = await post(
      { jsonrpc: '2.0', id: 1, method: 'getHealth', params: [] },
      `${gateway.networks[0].baseUrl}/v3/not-a-key`,
    );
    assert.equal(wrongKey.status, 401);
    assert.equal(wrongKey.body.error?.code, -32040);
    const poor = (await gateway.keys.create({ name: 'poor', dailyCredits: 100 })).key;
    const exhausted = await post(
      { jsonrpc: '2.0', id: 1, method: 'getSignaturesForAddress', params: [ledger.devAccounts[0].address] },
      `${gateway.networks[0].baseUrl}/v3/${poor}`,
    );
    assert.equal(exhausted.body.error?.code, -32042);
    for (const code of [wrongKey.body.error?.code, exhausted.body.error?.code]) {
      assert.notEqual(code, -32005);
      assert.notEqual(code, -32016);
    }
  });
});
