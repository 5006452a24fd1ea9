// Wires the page to the two halves: the user's own account (account.ts, @portico/auth) and the
// reference wallet (wallet.ts, @portico/multichain).
import type { Auth } from '@portico/auth';
import { MultichainRpcError } from '@portico/multichain';
import type { Hex } from 'viem';
import { type Account, accountOf, createAuth } from './account.ts';
import { connectWallet, showWalletPage, type WalletConnection } from './wallet.ts';

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;
const show = (id: string, text: string) => {
  $(id).textContent = text;
};
/** Runs a click handler (its button disabled meanwhile), reporting progress and failures in the status line. */
const action = (button: string, busy: string, run: () => Promise<void>) =>
  $(button).addEventListener('click', async () => {
    $<HTMLButtonElement>(button).disabled = true;
    show('status', busy);
    try {
      await run();
      show('status', '');
    } catch (error) {
      show('status', describe(error));
    } finally {
      $<HTMLButtonElement>(button).disabled = false;
      updateButtons();
    }
  });

function updateButtons() {
  $('login').hidden = account !== undefined;
  $('logout').hidden = account === undefined;
  $<HTMLButtonElement>('send').disabled = account === undefined;
  $<HTMLButtonElement>('sign').disabled = wallet === undefined;
}

function describe(error: unknown): string {
  if (error instanceof MultichainRpcError) return `Error ${error.code}: ${error.message}`;
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}

let auth: Auth;
let account: Account | undefined;
let wallet: WalletConnection | undefined;

async function showAccount() {
  account = await accountOf(auth);
  updateButtons();
  show('evm-address', account?.evmAddress ?? '—');
  show('solana-address', account?.solanaAddress ?? '—');
  const balances = await account?.balances();
  show('eth-balance', balances?.eth ?? '—');
  show('sol-balance', balances?.sol ?? '—');
}

action('login', 'Logging in (popup)…', async () => {
  await auth.login({});
  await showAccount();
});

action('logout', 'Logging out…', async () => {
  await auth.logout();
  await showAccount();
});

action('send', 'Sending 0.01 ETH…', async () => {
  if (!account) return;
  const to = $<HTMLInputElement>('recipient').value.trim() as Hex;
  const receipt = await account.sendEth(to, '0.01');
  show('receipt', `${receipt.status} in block ${receipt.blockNumber}: ${receipt.transactionHash}`);
  await showAccount();
});

action('connect', 'Approve the connection in the wallet…', async () => {
  showWalletPage();
  await wallet?.close();
  wallet = await connectWallet((block) => {
    const item = document.createElement('li');
    item.textContent = `Block ${block.number} ${block.hash}`;
    $('blocks').prepend(item);
  });
  show('wallet-account', wallet.account);
});

action('sign', 'Approve or reject the signature in the wallet…', async () => {
  if (!wallet) return;
  showWalletPage();
  show('signature', '—');
  try {
    show('signature', await wallet.signMessage($<HTMLInputElement>('message').value));
  } catch (error) {
    show('signature', describe(error));
    throw error;
  }
});

try {
  auth = await createAuth();
  $<HTMLButtonElement>('login').disabled = false;
  await showAccount();
} catch (error) {
  show('status', describe(error));
}
