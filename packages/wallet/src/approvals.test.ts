import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApprovalQueue } from './approvals.ts';
import type { SigningRequest } from './signing/types.ts';

const signing: SigningRequest = {
  origin: 'https://dapp.example',
  scope: 'eip155:1',
  method: 'personal_sign',
  account: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
  details: { title: 'Signature request', summary: 'Sign a message', fields: [] },
};

test('an unanswered signing request expires once, leaves the queue and is listed as expired', async () => {
  const queue = createApprovalQueue({ requestExpiryMs: 1 });
  assert.equal(await queue.requestSignature(signing), 'expired');
  assert.deepEqual(queue.list(), []);
  const [expired] = queue.expired();
  assert.deepEqual(
    { origin: expired.origin, method: expired.method, title: expired.title },
    { origin: 'https://dapp.example', method: 'personal_sign', title: 'Signature request' },
  );
  // The origin may ask again (no -32002 from the expired one).
  const again = queue.requestSignature(signing);
  assert.equal(queue.list().length, 1);
  assert.equal(await again, 'expired');
});

test('a request answered in time is not expired later; connection requests do not expire', async () => {
  const queue = createApprovalQueue({ requestExpiryMs: 50 });
  const asked = queue.requestSignature(signing);
  const [pending] = queue.list();
  assert.equal(pending.kind, 'signature');
  assert.ok(pending.kind === 'signature' && Date.parse(pending.expiresAt) > Date.parse(pending.createdAt));
  queue.decide(pending.id, { approved: true, accounts: {} });
  assert.equal(await asked, 'approved');
  const connection = queue.request({
    origin: 'https://other.example',
    scopes: { 'eip155:1': { methods: [], notifications: [] } },
    accounts: {},
    preselected: {},
    sessionProperties: {},
  });
  // Wait past the expiry on a signing request of a third origin; the connection still waits.
  assert.equal(await queue.requestSignature({ ...signing, origin: 'https://third.example' }), 'expired');
  assert.deepEqual(
    queue.list().map((entry) => entry.kind),
    ['connection'],
  );
  assert.deepEqual(
    queue.expired().map((entry) => entry.origin),
    ['https://third.example'],
  );
  queue.rejectAll();
  assert.deepEqual(await connection, { approved: false });
});

test('requestExpiryMs must be a whole number of milliseconds a timer can hold', () => {
  for (const requestExpiryMs of [0, -1, 1.5, Number.NaN, 2 ** 31])
    assert.throws(() => createApprovalQueue({ requestExpiryMs }), /requestExpiryMs must be/);
});
