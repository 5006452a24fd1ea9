import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  EIP155_NOTIFICATIONS,
  EIP155_READ_METHODS,
  EIP155_WALLET_METHODS,
  SOLANA_METHODS,
} from '../src/index.ts';

const readme = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

test('the root and multichain READMEs list every method and notification the reference wallet supports', () => {
  const names = [
    ...EIP155_WALLET_METHODS,
    ...EIP155_READ_METHODS,
    ...EIP155_NOTIFICATIONS,
    ...SOLANA_METHODS,
  ];
  for (const [file, text] of [
    ['README.md', readme('../../../README.md')],
    ['packages/multichain/README.md', readme('../../multichain/README.md')],
  ]) {
    const missing = names.filter((name) => !text.includes(`\`${name}\``));
    assert.deepEqual(missing, [], `${file} leaves out ${missing.join(', ')}`);
  }
});
