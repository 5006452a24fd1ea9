import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startWallet, type Wallet } from '../src/index.ts';

// The approval API's bodies are checked against their schemas before anything runs: a body that
// does not fit is 400 INVALID_BODY naming the field at fault.
describe('the approval API refuses a body that does not fit, naming the field', { timeout: 60_000 }, () => {
  let wallet: Wallet;
  before(async () => {
    wallet = await startWallet({ chains: [] });
  });
  after(() => wallet?.close());

  const post = async (path: string, body: string) => {
    const [base, token] = wallet.approvalUrl.split('/approve#token=');
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    });
    return { status: response.status, body: await response.json() };
  };

  test('each route names its field', async () => {
    const cases: [path: string, body: unknown, message: string][] = [
      ['/api/approvals/some-id', { approved: 'yes' }, 'approved must be true or false'],
      ['/api/approvals/some-id', {}, 'approved must be true or false'],
      ['/api/approvals/some-id', { approved: true, scopes: ['eip155:1', 7] }, 'scopes.1 must be a string'],
      [
        '/api/approvals/some-id',
        { approved: true, accounts: { eip155: '0x1' } },
        'accounts.eip155 must be a list',
      ],
      ['/api/sessions/revoke', {}, 'origin must be a string'],
      ['/api/sessions/revoke', [1], 'body must be an object'],
      ['/api/login', { idToken: 5 }, 'idToken must be a string'],
      ['/api/fund', { namespace: 'eip155' }, 'address must be a non-empty string'],
    ];
    for (const [path, body, message] of cases) {
      const refused = await post(path, JSON.stringify(body));
      assert.equal(refused.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.deepEqual(refused.body, { error: { code: 'INVALID_BODY', message } });
    }
  });

  test('a body that fits reaches the route: an answer to no pending request is 404', async () => {
    const answered = await post('/api/approvals/some-id', JSON.stringify({ approved: false }));
    assert.equal(answered.status, 404);
    assert.equal(answered.body.error.code, 'APPROVAL_NOT_FOUND');
    const notJson = await post('/api/sessions/revoke', '{');
    assert.deepEqual(notJson.body, { error: { code: 'INVALID_BODY', message: 'the body is not JSON' } });
  });
});
