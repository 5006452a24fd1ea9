import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '@portico/testkit';
import { createPublicClient, http } from 'viem';
import { foundry } from 'viem/chains';
import { DEV_WALLET_CLIENT_ID } from '../src/commands/dev.ts';
import { BIN, type Running, startDev } from './dev-process.ts';

function processAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function anvilPidOn(url: string): Promise<number | undefined> {
  const port = new URL(url).port;
  const { execSync } = await import('node:child_process');
  const out = execSync(`ss -ltnpH 'sport = :${port}' || true`).toString();
  const match = /pid=(\d+)/.exec(out);
  return match ? Number(match[1]) : undefined;
}

async function waitUntil(condition: () => boolean, ms: number) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

describe('portico dev', () => {
  const dir = tempDir();
  let dev: Running;

  before(async () => {
    dev = await startDev(dir.path, ['--block-time', '0']);
  });
  after(() => {
    dev.child.kill('SIGKILL');
    dir.cleanup();
  });

  test('--config-out lists the local network, the key and the admin token', () => {
    const local = dev.config.networks.local;
    assert.equal(local.chainId, 'eip155:31337');
    assert.match(local.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/local$/);
    assert.equal(local.rpcUrl, `${local.baseUrl}/v3/${dev.config.apiKey}`);
    assert.match(dev.config.apiKey, /^[0-9a-f]{32}$/);
    assert.ok(dev.config.adminToken.length >= 32);
  });

  test('the dashboard, the wallet and the auth service answer at the addresses in --config-out', async () => {
    const dashboard = await fetch(dev.config.dashboard.url);
    assert.equal(dashboard.status, 200);
    assert.match(await dashboard.text(), /<html/i);
    // The auth service by name: WebAuthn takes no IP address as RP ID (passkeys on its pages).
    assert.match(dev.config.auth.sdkUrl, /^http:\/\/localhost:\d+$/);
    const jwks = (await (await fetch(dev.config.auth.jwksUrl)).json()) as { keys: unknown[] };
    assert.ok(jwks.keys.length > 0);
    assert.match(dev.config.wallet.wsUrl, /^ws:\/\/127\.0\.0\.1:\d+\//);
    assert.deepEqual(dev.config.wallet.chains, ['eip155:31337', dev.config.networks['solana-local'].chainId]);

    const approval = await fetch(dev.config.wallet.approvalUrl.split('#')[0]);
    assert.equal(approval.status, 200);
    assert.equal(dev.config.wallet.accountSource, 'dev');
    assert.deepEqual(dev.config.wallet.auth, {
      sdkUrl: dev.config.auth.sdkUrl,
      clientId: DEV_WALLET_CLIENT_ID,
    });
    assert.ok(!dev.output().includes(dev.config.adminToken), 'the banner does not print the admin token');
  });

  test('the dashboard reads the auth service audit trail with the admin token only; the auth service keeps its own token', async () => {
    const audit = `${dev.config.dashboard.url}api/audit`;
    const bearer = { authorization: `Bearer ${dev.config.adminToken}` };
    const listed = await fetch(audit, { headers: bearer });
    assert.equal(listed.status, 200);
    assert.ok(Array.isArray(((await listed.json()) as { entries: unknown[] }).entries));
    const verified = (await (await fetch(`${audit}/verify`, { headers: bearer })).json()) as {
      broken?: unknown;
    };
    assert.equal(verified.broken, undefined);
    assert.equal((await fetch(audit)).status, 401);
    // The gateway's admin token does not open the auth service's admin API (its token is another one).
    const direct = await fetch(`${dev.config.auth.sdkUrl}/admin/audit`, { headers: bearer });
    assert.equal(direct.status, 401);
  });

  test('the wallet logs its user in through the dev auth service: "Log in" parks a login there under the wallet’s name', async () => {
    const [base, token] = dev.config.wallet.approvalUrl.split('/approve#token=');
    const started = await fetch(`${base}/api/login`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const { loginUrl } = (await started.json()) as { loginUrl: string };
    assert.ok(loginUrl.startsWith(`${dev.config.auth.sdkUrl}/start#b64Params=`));
    // What the login page shows for it: the wallet's name, the development login.
    const { loginId } = JSON.parse(Buffer.from(loginUrl.split('b64Params=')[1], 'base64url').toString());
    const view = (await (
      await fetch(`${dev.config.auth.sdkUrl}/api/login/request`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ loginId }),
      })
    ).json()) as { whiteLabel: { appName: string }; providers: { id: string }[]; redirectUrl: string };
    assert.equal(view.whiteLabel.appName, 'Portico wallet');
    assert.ok(view.providers.some((p) => p.id === 'portico-dev'));
    assert.match(view.redirectUrl, new RegExp(`^${base}/login/callback/[0-9a-f]{32}$`));
    await fetch(`${base}/api/login/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
  });

  test('the banner prints the addresses, the key and curl examples that work', async () => {
    const banner = dev.output();
    assert.ok(banner.includes(dev.config.networks.local.rpcUrl));
    assert.ok(banner.includes(`API key        ${dev.config.apiKey}`));
    const example = /--data '([^']+)'/.exec(banner);
    assert.ok(example, 'a curl example with a JSON body');
    const response = await fetch(dev.config.networks.local.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: example[1],
    });
    const body = (await response.json()) as { result: { number: string } };
    assert.equal(response.status, 200);
    assert.match(body.result.number, /^0x[0-9a-f]+$/);
  });

  test('the seeded Solana ledger answers getSignaturesForAddress through the gateway', async () => {
    const solana = dev.config.networks['solana-local'];
    assert.match(solana.chainId, /^solana:[1-9A-HJ-NP-Za-km-z]{32}$/);
    const call = () =>
      fetch(solana.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getSignaturesForAddress',
          params: [dev.config.solana.devAccounts[0].address, { limit: 5 }],
        }),
      });
    const first = await call();
    const body = (await first.json()) as { result: { signature: string; err: unknown }[] };
    assert.ok(body.result.length > 0, 'the seed left history for the first dev account');
    const second = await call();
    const spent =
      Number(first.headers.get('x-credits-remaining')) - Number(second.headers.get('x-credits-remaining'));
    assert.equal(spent, 160, 'getSignaturesForAddress costs 160 credits');
  });

  test('the seeded chain answers through the gateway with viem', async () => {
    const client = createPublicClient({ chain: foundry, transport: http(dev.config.networks.local.rpcUrl) });
    const failed = await client.getTransactionReceipt({ hash: dev.config.evm.transactions.failed });
    assert.equal(failed.status, 'reverted');
    const deploy = await client.getTransactionReceipt({ hash: dev.config.evm.transactions.deploy });
    assert.equal(deploy.contractAddress?.toLowerCase(), dev.config.evm.demoContract.toLowerCase());
  });

  test('portico keys on the same data folder creates a key the running gateway accepts', async () => {
    const { execFileSync } = await import('node:child_process');
    const created = JSON.parse(
      execFileSync(process.execPath, [
        BIN,
        'keys',
        'create',
        '--name',
        'cli-test',
        '--daily-credits',
        '1000',
        '--data-dir',
        dir.path,
        '--json',
      ]).toString(),
    ) as { key: string; id: string };
    const url = `${dev.config.networks.local.baseUrl}/v3/${created.key}`;
    const call = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
    assert.equal((await call()).status, 200);
    execFileSync(process.execPath, [BIN, 'keys', 'revoke', created.id, '--data-dir', dir.path]);
    // The running gateway reads the revocation from the data folder; on a loaded machine (CI's
    // coverage line) that takes seconds, not the usual fraction of one.
    let status = 200;
    const deadline = Date.now() + 30_000;
    while (status !== 401 && Date.now() < deadline) {
      status = (await call()).status;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(status, 401);
  });

  test('SIGTERM stops portico dev and its anvil', async () => {
    const anvilPid = await anvilPidOn(dev.config.evm.upstreamUrl);
    assert.ok(anvilPid, 'anvil listens');
    dev.child.kill('SIGTERM');
    assert.ok(await waitUntil(() => dev.child.exitCode !== null, 30_000), 'portico dev exits');
    assert.equal(dev.child.exitCode, 0);
    assert.ok(await waitUntil(() => !processAlive(anvilPid), 15_000), 'anvil is gone');
  });

  test('a second start on the same data folder keeps the dev key; SIGKILL leaves no anvil behind', async () => {
    const again = await startDev(dir.path, ['--block-time', '0']);
    try {
      assert.equal(again.config.apiKey, dev.config.apiKey);
      const anvilPid = await anvilPidOn(again.config.evm.upstreamUrl);
      assert.ok(anvilPid);
      again.child.kill('SIGKILL');
      assert.ok(await waitUntil(() => !processAlive(anvilPid), 15_000), 'the watchdog stops anvil');
    } finally {
      again.child.kill('SIGKILL');
    }
  });
});
