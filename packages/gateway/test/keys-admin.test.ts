// API keys and the admin HTTP API: create/list/get/patch/revoke guarded by the admin token, keys
// stored only hashed in SQLite, and changes made by another process (the CLI) on the same data dir.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hashApiKey, openEmbeddedStores } from '@portico/gateway';
import Database from 'libsql';
import { gatewayFor, post, type RawReply, rpc, type Stack, startStack } from './harness.ts';

const ADMIN_TOKEN = 'keys-admin-test-token-0123456789';

let stack: Stack;

before(async () => {
  stack = await startStack({ seed: false, adminToken: ADMIN_TOKEN });
});
after(async () => {
  await stack?.close();
});

type KeyView = {
  key?: string;
  id: string;
  name: string;
  prefix: string;
  dailyCredits: number;
  creditsUsedToday: number;
  creditsRemainingToday: number;
  revokedAt: string | null;
  endpoints?: { network: string; chainId: string; url: string }[];
};

function admin(
  method: string,
  path: string,
  body?: unknown,
  token: string | null = ADMIN_TOKEN,
): Promise<RawReply> {
  return post(`${stack.gateway.url}${path}`, body ?? (method === 'GET' ? undefined : {}), {
    method,
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
  });
}

const chainId = (url: string) => rpc(url, 'eth_chainId', []);

/** Polls a condition a bounded number of times (the key cache is re-checked every 100 ms). */
async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`${what} did not happen within ${timeoutMs} ms`);
}

describe('the admin token', () => {
  for (const [name, token] of [
    ['no token', null],
    ['a wrong token', 'wrong-token'],
    ['a prefix of the token', ADMIN_TOKEN.slice(0, 10)],
    ['an empty token', ''],
  ] as const) {
    test(`${name}: HTTP 401 on every admin route`, async () => {
      for (const [method, path] of [
        ['GET', '/admin/keys'],
        ['POST', '/admin/keys'],
        ['GET', '/admin/usage'],
        ['GET', '/admin/networks'],
        ['PATCH', '/admin/keys/key_x'],
        ['DELETE', '/admin/keys/key_x'],
      ]) {
        const reply = await admin(method, path, method === 'POST' ? { name: 'x' } : undefined, token);
        assert.equal(reply.status, 401, `${method} ${path}: ${reply.text}`);
        assert.equal((reply.body as { error: { code: string } }).error.code, 'ADMIN_TOKEN_REQUIRED');
      }
      assert.equal(
        (await stack.gateway.keys.list()).some((k) => k.name === 'x'),
        false,
        'nothing was created',
      );
    });
  }

  test('the token as a bare Authorization value (no Bearer) is refused', async () => {
    const reply = await post(`${stack.gateway.url}/admin/keys`, undefined, {
      method: 'GET',
      headers: { authorization: ADMIN_TOKEN },
    });
    assert.equal(reply.status, 401);
  });

  test('without an adminToken in the config the admin API does not exist', async () => {
    const gateway = await gatewayFor(stack.anvil.url);
    try {
      const reply = await post(`${gateway.url}/admin/keys`, undefined, {
        method: 'GET',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(reply.status, 404);
    } finally {
      await gateway.close();
    }
  });
});

describe('keys through the admin API', () => {
  test('create, list, get, patch and revoke a key', async () => {
    const created = await admin('POST', '/admin/keys', { name: 'dapp', dailyCredits: 1000 });
    assert.equal(created.status, 201, created.text);
    const view = created.body as KeyView;
    assert.match(view.key ?? '', /^[0-9a-f]{32}$/);
    const key = view.key!;
    assert.match(view.id, /^key_/);
    assert.equal(view.name, 'dapp');
    assert.equal(view.prefix, key.slice(0, 6));
    assert.equal(view.dailyCredits, 1000);
    assert.equal(view.creditsUsedToday, 0);
    assert.equal(view.revokedAt, null);
    const endpoint = view.endpoints?.find((e) => e.network === 'local');
    assert.equal(endpoint?.chainId, 'eip155:31337');
    assert.equal(endpoint?.url, stack.url(key));

    const used = await chainId(endpoint!.url);
    assert.equal(used.status, 200, 'the new key works at the endpoint shown');

    const list = await admin('GET', '/admin/keys');
    assert.equal(list.status, 200);
    const listed = (list.body as { keys: KeyView[] }).keys.find((k) => k.id === view.id);
    assert.equal(listed?.name, 'dapp');
    assert.equal(listed?.creditsUsedToday, 80);
    assert.equal(listed?.creditsRemainingToday, 920);
    assert.ok(!list.text.includes(key), 'a listing never shows the key');

    const one = await admin('GET', `/admin/keys/${view.id}`);
    assert.equal(one.status, 200);
    assert.equal((one.body as KeyView).creditsUsedToday, 80);
    assert.ok(!one.text.includes(key));

    const patched = await admin('PATCH', `/admin/keys/${view.id}`, {
      name: 'dapp (renamed)',
      dailyCredits: 100,
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal((patched.body as KeyView).name, 'dapp (renamed)');
    assert.equal((patched.body as KeyView).dailyCredits, 100);
    // 80 of 100 spent: the next call (80) no longer fits the lowered balance.
    const refused = await chainId(stack.url(key));
    assert.equal(refused.status, 429);
    const raised = await admin('PATCH', `/admin/keys/${view.id}`, { dailyCredits: 160 });
    assert.equal(raised.status, 200);
    assert.equal((await chainId(stack.url(key))).status, 200, 'a raised balance applies at once');

    const revoked = await admin('DELETE', `/admin/keys/${view.id}`);
    assert.equal(revoked.status, 200);
    assert.ok((revoked.body as KeyView).revokedAt, 'revokedAt is set');
    const afterRevoke = await chainId(stack.url(key));
    assert.equal(afterRevoke.status, 401);
    assert.equal(afterRevoke.body.error?.code, -32016);
    const listedAfter = (await admin('GET', '/admin/keys')).body as { keys: KeyView[] };
    assert.ok(listedAfter.keys.find((k) => k.id === view.id)?.revokedAt);
  });

  test('a key created without dailyCredits gets the default balance', async () => {
    const created = await admin('POST', '/admin/keys', { name: 'default' });
    assert.equal(created.status, 201);
    assert.equal((created.body as KeyView).dailyCredits, 3_000_000);
  });

  test('bad input: 400; unknown key id: 404', async () => {
    for (const body of [
      {},
      { name: '' },
      { name: 'x', dailyCredits: -1 },
      { name: 'x', dailyCredits: 1.5 },
    ]) {
      const reply = await admin('POST', '/admin/keys', body);
      assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${reply.text}`);
    }
    const invalidJson = await post(`${stack.gateway.url}/admin/keys`, '{nope', {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(invalidJson.status, 400);
    const { record } = await stack.gateway.keys.create({ name: 'patch-me' });
    const unknownField = await admin('PATCH', `/admin/keys/${record.id}`, { revokedAt: null });
    assert.equal(unknownField.status, 400);
    const badCredits = await admin('PATCH', `/admin/keys/${record.id}`, { dailyCredits: 'lots' });
    assert.equal(badCredits.status, 400);
    // A value of the wrong type is refused by its schema, naming the field.
    for (const [method, path, body, message] of [
      ['POST', '/admin/keys', { name: 5 }, 'name must be a string'],
      [
        'POST',
        '/admin/keys',
        { name: 'x', creditsPerSecond: '9' },
        'creditsPerSecond must be a number or null',
      ],
      ['PATCH', `/admin/keys/${record.id}`, { dailyCredits: 'lots' }, 'dailyCredits must be a number'],
      [
        'PATCH',
        `/admin/keys/${record.id}`,
        { settings: { allowedMethods: 'eth_call' } },
        'settings.allowedMethods must be a list',
      ],
    ] as const) {
      const refused = await admin(method, path, body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.deepEqual((refused.body as { error: unknown }).error, { code: 'INVALID_INPUT', message });
    }
    assert.equal((await stack.gateway.keys.get(record.id))?.dailyCredits, 3_000_000, 'nothing was changed');
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      assert.equal((await admin(method, '/admin/keys/key_doesnotexist', {})).status, 404, method);
    }
    assert.equal((await admin('GET', '/admin/nothing')).status, 404);
  });

  test('GET /admin/networks lists the base addresses', async () => {
    const reply = await admin('GET', '/admin/networks');
    assert.equal(reply.status, 200);
    assert.deepEqual((reply.body as { networks: unknown[] }).networks, [
      { name: 'local', kind: 'evm', chainId: 'eip155:31337', baseUrl: stack.gateway.networks[0].baseUrl },
    ]);
  });
});

describe('storage', () => {
  test('keys are stored hashed: the key text appears nowhere in the database', async () => {
    const created = await admin('POST', '/admin/keys', { name: 'secret-check' });
    const key = (created.body as KeyView).key!;
    const direct = await stack.gateway.keys.create({ name: 'secret-check-direct' });
    await chainId(stack.url(key));
    await stack.gateway.usage.flush();

    const db = new Database(join(stack.dataDir, 'gateway.db'), { readonly: true });
    try {
      const tables = (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
      ).map((t) => t.name);
      assert.ok(tables.includes('api_keys'));
      let dump = '';
      for (const table of tables) {
        const rows = db.prepare(`SELECT * FROM "${table}"`).all() as Record<string, unknown>[];
        dump += JSON.stringify(rows);
      }
      for (const secret of [key, direct.key]) {
        assert.ok(!dump.includes(secret), 'the key text is in no row');
        assert.ok(!dump.includes(secret.slice(6)), 'not even the part after the shown prefix');
      }
      const rows = db.prepare('SELECT * FROM api_keys WHERE key_hash = ?').all(hashApiKey(key)) as Record<
        string,
        unknown
      >[];
      assert.equal(rows.length, 1, 'the key is found by its SHA-256 digest');
      assert.equal(rows[0].name, 'secret-check');
      assert.equal(rows[0].key_prefix, key.slice(0, 6));
    } finally {
      db.close();
    }
    // The raw files too (main database, WAL or journal).
    for (const file of readdirSync(stack.dataDir)) {
      const bytes = readFileSync(join(stack.dataDir, file)).toString('latin1');
      assert.ok(!bytes.includes(key) && !bytes.includes(direct.key), `${file} holds no key text`);
    }
  });

  test('a key revoked through a second store on the same file (as the CLI does) stops working', async () => {
    const { key, record } = await stack.gateway.keys.create({ name: 'cli-revoked' });
    assert.equal((await chainId(stack.url(key))).status, 200, 'the key works and is cached');
    const cli = openEmbeddedStores(stack.dataDir);
    try {
      const revoked = await cli.keys.revoke(record.id);
      assert.ok(revoked?.revokedAt);
    } finally {
      await cli.close();
    }
    await eventually(
      async () => (await chainId(stack.url(key))).status === 401,
      'the revocation taking effect',
    );
    assert.ok((await stack.gateway.keys.get(record.id))?.revokedAt, 'the gateway sees it revoked');
  });

  test('a key created through a second store on the same file is accepted within a bounded poll', async () => {
    const cli = openEmbeddedStores(stack.dataDir);
    let key: string;
    try {
      ({ key } = await cli.keys.create({ name: 'cli-created', dailyCredits: 500 }));
    } finally {
      await cli.close();
    }
    await eventually(
      async () => (await chainId(stack.url(key))).status === 200,
      'the new key being accepted',
    );
  });
});
