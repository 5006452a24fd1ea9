// Removing a passkey (the account page's `deletePasskey`) on SQLite and PostgreSQL: only the
// account's own credential goes, once; the other account's passkeys and the counter stay. And the
// compare-and-set of a value the passkey factor advances its counter with (`replaceValue`).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type FreshDatabase, freshDatabase, serviceUrl, tempDir } from '@portico/testkit';
import { type AuthStore, type PasskeyRow, PostgresStore, SqliteStore } from '../src/store.ts';

const row = (credentialId: string, userHandle: string, createdAt: number): PasskeyRow => ({
  credentialId,
  userHandle,
  account: 'sealed',
  publicKey: 'pk',
  counter: 0,
  transports: ['internal', 'hybrid'],
  createdAt,
  lastUsed: createdAt,
});

function removalTests(open: () => AuthStore) {
  it('deletes only the named passkey of the named account, once', async () => {
    const store = open();
    assert.equal(await store.putPasskey(row('cred-a1', 'handle-a', 1)), true);
    assert.equal(await store.putPasskey(row('cred-a2', 'handle-a', 2)), true);
    assert.equal(await store.putPasskey(row('cred-b1', 'handle-b', 3)), true);
    // Another account's handle deletes nothing.
    assert.equal(await store.deletePasskey('cred-b1', 'handle-a'), false);
    assert.equal(await store.deletePasskey('cred-a1', 'handle-a'), true);
    assert.equal(await store.deletePasskey('cred-a1', 'handle-a'), false, 'gone already');
    assert.deepEqual(
      (await store.listPasskeys('handle-a')).map((p) => p.credentialId),
      ['cred-a2'],
    );
    assert.equal(await store.getPasskey('cred-a1'), undefined);
    const other = await store.listPasskeys('handle-b');
    assert.deepEqual(
      other.map((p) => [p.credentialId, p.transports]),
      [['cred-b1', ['internal', 'hybrid']]],
    );
    // The removed credential id may be registered again (a new passkey of the same device).
    assert.equal(await store.putPasskey(row('cred-a1', 'handle-a', 4)), true);
  });

  it('replaceValue replaces a value only while it is the expected one', async () => {
    const store = open();
    assert.equal(await store.replaceValue('mfa:absent', '', 'x'), false, 'no value: nothing replaced');
    assert.equal(await store.getValue('mfa:absent'), undefined);
    await store.setValue('mfa:u', 'sealed-1');
    // Two checks that read the same record: the first one's write wins, the second changes nothing.
    assert.equal(await store.replaceValue('mfa:u', 'sealed-1', 'sealed-2'), true);
    assert.equal(await store.replaceValue('mfa:u', 'sealed-1', 'sealed-3'), false);
    assert.equal(await store.getValue('mfa:u'), 'sealed-2');
  });
}

describe('passkey store methods on SQLite', () => {
  const dir = tempDir('portico-auth-passkey-store-');
  let store: SqliteStore;
  before(() => {
    store = new SqliteStore(join(dir.path, 'store'));
  });
  after(async () => {
    await store?.close();
    dir.cleanup();
  });
  removalTests(() => store);
});

const pgUrl = serviceUrl('DATABASE_URL');

describe('passkey store methods on PostgreSQL', { skip: pgUrl.skip, timeout: 60_000 }, () => {
  let database: FreshDatabase;
  let store: PostgresStore;
  before(async () => {
    database = await freshDatabase(pgUrl.url!);
    store = await PostgresStore.open(database.url);
  });
  after(async () => {
    await store?.close();
    await database?.drop();
  });
  removalTests(() => store);
});
