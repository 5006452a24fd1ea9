import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AUTO_APPROVE_WARNING, walletBannerLines, walletConfigOut } from './banner.ts';
import type { Wallet } from './wallet-types.ts';

/** The members the banner reads; the rest of a running wallet is not needed here. */
function wallet(overrides: Partial<Wallet>): Wallet {
  return {
    wsUrl: 'ws://127.0.0.1:1',
    approvalUrl: 'http://127.0.0.1:1/#token=t',
    chains: ['eip155:31337'],
    accounts: { eip155: ['0xf39f'] },
    autoApprove: false,
    accountSource: 'dev',
    user: undefined,
    authClient: undefined,
    ...overrides,
  } as Wallet;
}

describe('wallet banner', () => {
  it('lists the Solana accounts only when a Solana chain is served', () => {
    assert.ok(!walletBannerLines(wallet({})).some((line) => line.includes('(solana)')));
    const lines = walletBannerLines(
      wallet({ chains: ['eip155:31337', 'solana:abc'], accounts: { solana: ['So1'] } }),
    );
    assert.ok(lines.includes('Wallet accounts (solana):     So1'));
  });

  it('names the auth service when logins go through one, and ends with the warning under autoApprove', () => {
    const lines = walletBannerLines(
      wallet({ authClient: { sdkUrl: 'http://auth', clientId: 'c' }, autoApprove: true }),
    );
    assert.ok(lines.some((line) => line.includes('(auth http://auth)')));
    assert.equal(lines.at(-1), AUTO_APPROVE_WARNING);
  });

  it('the --config-out section has auth null without an auth service', () => {
    assert.equal(walletConfigOut(wallet({})).auth, null);
  });
});
