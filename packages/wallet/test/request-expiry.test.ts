import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getMultichainClient } from '@metamask/multichain-api-client';
import { getPorticoTransport } from '@portico/multichain';
import { launchChromium } from '@portico/testkit';
import type { Browser } from 'playwright-core';
import { REQUEST_EXPIRED_CODE, startWallet, type Wallet } from '../src/index.ts';
import { apiError } from './helpers.ts';

// A signing request nobody answers is answered with REQUEST_EXPIRED after `requestExpiryMs` (short
// here), and the approval page says so. Nothing asserts how long it took: only that it expired.
const EVM = 'eip155:31337';
const ORIGIN = 'https://expiry.test';

describe('signing requests expire', () => {
  let wallet: Wallet;
  let browser: Browser;

  before(async () => {
    wallet = await startWallet({
      // personal_sign is answered by the wallet itself: no chain is read.
      chains: [{ chainId: EVM, rpcUrl: 'http://127.0.0.1:9' }],
      accountCount: 1,
      requestExpiryMs: 300,
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await wallet?.close();
  });

  test('an unanswered personal_sign fails with 8000 and a clear message; the page lists it as expired', async () => {
    const page = await browser.newPage();
    await page.goto(wallet.approvalUrl);
    const client = getMultichainClient({
      transport: getPorticoTransport({ url: wallet.wsUrl, origin: ORIGIN }),
    });
    const connecting = client.createSession({
      optionalScopes: { [EVM]: { methods: [], notifications: [] } },
    });
    const connection = page.getByRole('region', { name: `Connection request from ${ORIGIN}` });
    await connection.getByRole('button', { name: 'Approve' }).click();
    await connecting;

    const [account] = wallet.accounts.eip155;
    const error = await apiError(
      client.invokeMethod({
        scope: EVM,
        request: { method: 'personal_sign', params: ['0x6869', account] } as never,
      }),
    );
    assert.equal(error.code, REQUEST_EXPIRED_CODE);
    assert.equal(
      error.message,
      "Request expired: nobody answered it on the wallet's approval page within 0.3 s.",
    );
    const note = page.getByRole('list', { name: 'Expired requests' }).getByRole('listitem');
    await note.first().waitFor();
    assert.match(
      (await note.first().textContent()) ?? '',
      /^Signature request from https:\/\/expiry\.test expired at .+: nobody answered it in time, and the site was told\.$/,
    );
    // The expired request is no longer pending: a new one from the origin is not -32002.
    const again = apiError(
      client.invokeMethod({
        scope: EVM,
        request: { method: 'personal_sign', params: ['0x6869', account] } as never,
      }),
    );
    assert.equal((await again).code, REQUEST_EXPIRED_CODE);
  });
});
