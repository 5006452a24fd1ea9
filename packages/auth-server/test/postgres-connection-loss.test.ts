import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type FreshDatabase,
  freshDatabase,
  serviceUrl,
  tempDir,
  terminateConnections,
} from '@portico/testkit';
import { type AuthServer, startAuthServer } from '../src/index.ts';

// PostgreSQL ending the service's connections (a restart, a failover, PgBouncer, an administrator)
// must not end the service: the pool drops them and the next request opens new ones. (Before, an
// idle connection's error event went unheard and took the process down.)
const pgUrl = serviceUrl('DATABASE_URL');

describe('the auth service when PostgreSQL ends its connections', { skip: pgUrl.skip }, () => {
  const dir = tempDir('portico-auth-pg-loss-');
  let database: FreshDatabase;
  let service: AuthServer;

  before(async () => {
    database = await freshDatabase(pgUrl.url!);
    service = await startAuthServer({
      databaseUrl: database.url,
      dataDir: dir.path,
      masterKey: 'c'.repeat(64),
      verifiers: {},
    });
  });
  after(async () => {
    await service?.close();
    await database?.drop();
    dir.cleanup();
  });

  const readSession = () =>
    fetch(`${service.sdkUrl}/api/session/get`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: `04${'ab'.repeat(64)}` }),
    });

  it('keeps serving: the next request after the server ended every connection is answered', async () => {
    assert.equal((await readSession()).status, 404, 'no such session, read from the store');
    assert.ok((await terminateConnections(pgUrl.url!, database.name)) > 0, 'the pool had connections');
    assert.equal((await readSession()).status, 404, 'answered again from the store, on new connections');
  });
});
