import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getMultichainClient } from '@metamask/multichain-api-client';
import { type Anvil, startAnvil } from '@portico/devchain';
import { getPorticoTransport } from '@portico/multichain';
import { assertAccessible, launchChromium } from '@portico/testkit';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { encodeFunctionData, maxUint256, parseAbi } from 'viem';
import { startWallet, type Wallet } from '../src/index.ts';
import { stopAnvil } from './helpers.ts';

// The approval page as a person sees it, in light and dark and at phone and desktop width: a
// warning above an unlimited approval, addresses cut in the middle with the whole one a click away,
// balances rounded (exact on demand), networks by name, the history of what was signed; axe-core
// finds nothing in any of the four. Screenshots for docs/ are written only when PORTICO_SCREENSHOTS
// names a folder (docs/screenshots).
const SCOPE = 'eip155:31337';
const ORIGIN = 'https://design.test';
const SPENDER = '0x2000000000000000000000000000000000000002';
const SCREENSHOTS = process.env.PORTICO_SCREENSHOTS ? resolve(process.env.PORTICO_SCREENSHOTS) : undefined;

describe('the approval page looks like a wallet', () => {
  let anvil: Anvil;
  let wallet: Wallet;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    anvil = await startAnvil();
    wallet = await startWallet({ chains: [{ chainId: SCOPE, rpcUrl: anvil.url }], accountCount: 2 });
    browser = await launchChromium();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await wallet?.close();
    await stopAnvil(anvil);
  });

  async function open(width: number, colorScheme: 'light' | 'dark'): Promise<Page> {
    // bypassCSP lets axe-core be injected; the page itself runs under its own CSP.
    const context = await browser.newContext({
      bypassCSP: true,
      viewport: { width, height: 900 },
      colorScheme,
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(wallet.approvalUrl);
    return page;
  }

  test('a warning, short addresses, rounded balances, network names and history, in light, dark, phone and desktop', async () => {
    const page = await open(1280, 'light');
    const client = getMultichainClient({
      transport: getPorticoTransport({ url: wallet.wsUrl, origin: ORIGIN }),
    });
    const connecting = client.createSession({
      optionalScopes: { [SCOPE]: { methods: [], notifications: [] } },
    });
    const connection = page.getByRole('region', { name: `Connection request from ${ORIGIN}` });
    await connection.getByRole('button', { name: 'Approve' }).click();
    await connecting;
    const [account] = wallet.accounts.eip155;

    // A message signed, then a transfer rejected: both in the history, newest first.
    const signing = client.invokeMethod({
      scope: SCOPE,
      request: { method: 'personal_sign', params: ['0x6869', account] } as never,
    });
    await page
      .getByRole('region', { name: `Signature request from ${ORIGIN}` })
      .getByRole('button', { name: 'Approve' })
      .click();
    await signing;
    const history = page.getByRole('list', { name: 'History' });
    await history.getByText('Approved').waitFor();

    const data = encodeFunctionData({
      abi: parseAbi(['function approve(address spender, uint256 amount)']),
      args: [SPENDER, maxUint256],
    });
    const approving = Promise.resolve(
      client.invokeMethod({
        scope: SCOPE,
        request: { method: 'eth_sendTransaction', params: [{ from: account, to: SPENDER, data }] } as never,
      }),
    ).catch((error: unknown) => error);
    const request = page.getByRole('region', { name: `Transaction request from ${ORIGIN}` });
    const warning = request.getByRole('alert');
    await warning.waitFor();
    assert.match(
      (await warning.textContent()) ?? '',
      /Look closely before you approve.*spend an unlimited amount of this token/,
    );
    assert.equal(await request.locator('.from .origin').textContent(), ORIGIN);

    // The account: the address cut in the middle, its whole self in the title and accessible name.
    const address = page.locator(`code.address[data-address="${account}"]`);
    assert.equal(await address.textContent(), `${account.slice(0, 6)}…${account.slice(-4)}`);
    assert.equal(await address.getAttribute('aria-label'), account);
    const balance = page.locator(`.balance[data-address="${account}"]`);
    await balance.filter({ hasText: /^10,000 ETH on Local EVM chain$/ }).waitFor();

    for (const [width, scheme, name] of [
      [1280, 'light', 'wallet-desktop-light'],
      [390, 'dark', 'wallet-phone-dark'],
      [390, 'light', 'wallet-phone-light'],
      [1280, 'dark', 'wallet-desktop-dark'],
    ] as const) {
      const view = width === 1280 && scheme === 'light' ? page : await open(width, scheme);
      await view
        .getByRole('region', { name: `Transaction request from ${ORIGIN}` })
        .getByRole('alert')
        .waitFor();
      await view.locator(`.balance[data-address="${account}"]`).filter({ hasText: 'ETH' }).waitFor();
      await assertAccessible(view, `${name} approval page`);
      // Nothing is wider than the screen: no sideways scrolling on a phone.
      const overflow = await view.evaluate(() => {
        const wide = [...document.querySelectorAll('body *')]
          .filter((node) => node.scrollWidth > node.clientWidth + 1)
          .map((node) => `${node.tagName.toLowerCase()}.${node.className}`);
        return { by: document.documentElement.scrollWidth - window.innerWidth, wide: wide.slice(0, 5) };
      });
      assert.ok(
        overflow.by <= 0,
        `${name}: the page is ${overflow.by}px wider than the screen (${overflow.wide})`,
      );
      if (SCREENSHOTS && (name === 'wallet-desktop-light' || name === 'wallet-phone-dark'))
        await view.screenshot({ path: `${SCREENSHOTS}/${name}.png`, fullPage: true });
    }

    await request.getByRole('button', { name: 'Reject' }).click();
    assert.equal(((await approving) as { cause?: { code?: number } }).cause?.code, 4001);
    await history.getByText('Rejected').waitFor();
    const entries = await history.getByRole('listitem').allTextContents();
    assert.match(
      entries[0],
      /^Rejected Call function 0x095ea7b3 on .* — https:\/\/design\.test, Local EVM chain, /,
    );
    assert.match(entries[1], /^Approved Sign a message — https:\/\/design\.test, Local EVM chain, /);

    // Exact balances on demand.
    await page.getByRole('button', { name: 'Exact balances' }).click();
    assert.equal(
      await page.getByRole('button', { name: 'Exact balances' }).getAttribute('aria-pressed'),
      'true',
    );
    await balance.filter({ hasText: /^10000 ETH on Local EVM chain$/ }).waitFor();
  });
});
