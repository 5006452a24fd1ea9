import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { serviceUrl, tempDir } from '@portico/testkit';
import {
  createPostgresSessionStore,
  createSqliteSessionStore,
  type Session,
  type SessionStore,
} from '../src/node.ts';
import { connectDapp, createTestWallet } from './helpers.ts';

const session: Session = {
  sessionScopes: { 'eip155:1': { methods: ['eth_call'], notifications: [], accounts: ['eip155:1:0xabc'] } },
  sessionProperties: {},
};

async function exerciseStore(store: SessionStore, origin: string) {
  assert.equal(await store.get(origin), undefined);
  await store.set(origin, session);
  assert.deepEqual(await store.get(origin), session);
  await store.set(origin, { ...session, sessionScopes: {} });
  assert.deepEqual((await store.get(origin))?.sessionScopes, {});
  assert.ok((await store.list()).some((entry) => entry.origin === origin));
  assert.equal(await store.delete(origin), true);
  assert.equal(await store.delete(origin), false);
}

describe('SQLite session store', () => {
  const dir = tempDir();
  after(() => dir.cleanup());

  test('stores, replaces, lists and deletes one session per origin', async () => {
    const store = createSqliteSessionStore(join(dir.path, 'a.sqlite'));
    await exerciseStore(store, 'https://dapp.example');
    await store.close();
  });

  test('a session survives a wallet restart', async () => {
    const path = join(dir.path, 'restart.sqlite');
    const first = createTestWallet({ store: createSqliteSessionStore(path) });
    const created = await connectDapp(first.engine).client.createSession({
      optionalScopes: { 'eip155:1': { methods: [], notifications: [] } },
    });
    await first.engine.close();
    const second = createTestWallet({ store: createSqliteSessionStore(path) });
    assert.deepEqual(await connectDapp(second.engine).client.getSession(), created);
  });
});

describe('PostgreSQL session store', () => {
  const { url, skip } = serviceUrl('DATABASE_URL');
  test('stores, replaces, lists and deletes one session per origin', { skip }, async () => {
    const store = await createPostgresSessionStore({ databaseUrl: url!, table: 'multichain_sessions_test' });
    try {
      await exerciseStore(store, `https://dapp-${process.pid}.example`);
    } finally {
      await store.close();
    }
  });
});
