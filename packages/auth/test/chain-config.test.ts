import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AuthValidationError,
  normalizeChainId,
  normalizeInitParams,
  validateChainConfig,
} from '../src/index.ts';

const base = { clientId: 'BPi5PB_UiIZ', network: 'sapphire_devnet' } as const;
const evm = { chainNamespace: 'eip155', chainId: '0x7A69', rpcTarget: 'http://127.0.0.1:8545/local/v3/KEY' };

/** normalizeInitParams refuses the input with an AuthValidationError naming `field`. */
const rejects = (input: unknown, field: string, message: RegExp) =>
  assert.throws(() => normalizeInitParams(input), { name: AuthValidationError.name, field, message });

describe('chainConfig (init parameter, beyond the seed)', () => {
  it('is validated and kept with its chain id in one spelling, next to chainNamespace', () => {
    const { params } = normalizeInitParams({
      ...base,
      chainNamespace: 'eip155',
      chainConfig: { ...evm, ticker: 'ETH', decimals: 18 },
    });
    assert.deepEqual(params.chainConfig, { ...evm, chainId: '0x7a69', ticker: 'ETH', decimals: 18 });
    assert.equal(params.chainNamespace, 'eip155');
  });

  it('sets chainNamespace when only chainConfig names it, and must agree with it otherwise', () => {
    const solana = {
      chainNamespace: 'solana',
      chainId: '0x3',
      rpcTarget: 'https://gw.example/solana/v3/KEY',
    };
    const { params } = normalizeInitParams({ ...base, chainConfig: solana });
    assert.equal(params.chainNamespace, 'solana');
    assert.equal(params.chainConfig?.chainId, 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
    rejects(
      { ...base, chainNamespace: 'eip155', chainConfig: solana },
      'chainConfig.chainNamespace',
      /same namespace as chainNamespace \(eip155\)/,
    );
  });

  it('names the field and what is allowed for every invalid value', () => {
    rejects({ ...base, chainConfig: 'eip155' }, 'chainConfig', /chainNamespace, chainId, rpcTarget/);
    rejects(
      { ...base, chainConfig: { ...evm, chainNamespace: 'cosmos' } },
      'chainConfig.chainNamespace',
      /eip155, solana/,
    );
    for (const chainId of ['31337', '0x0', '0x007a69x', 7, '0x10000000000000']) {
      rejects({ ...base, chainConfig: { ...evm, chainId } }, 'chainConfig.chainId', /hex chain id/);
    }
    rejects(
      { ...base, chainConfig: { ...evm, rpcTarget: 'ws://127.0.0.1/v3/KEY' } },
      'chainConfig.rpcTarget',
      /http\(s\)/,
    );
    rejects({ ...base, chainConfig: { ...evm, rpcTarget: undefined } }, 'chainConfig.rpcTarget', /http\(s\)/);
    rejects({ ...base, chainConfig: { ...evm, logo: 'not a url' } }, 'chainConfig.logo', /absolute URL/);
    rejects({ ...base, chainConfig: { ...evm, decimals: 1.5 } }, 'chainConfig.decimals', /whole number/);
    rejects(
      { ...base, chainConfig: { ...evm, tickername: 'Ether' } },
      'chainConfig.tickername',
      /known fields/,
    );
  });

  it('never echoes an rpcTarget (it carries the API key) in an error', () => {
    assert.throws(
      () => validateChainConfig({ ...evm, rpcTarget: 'ftp://gw.example/v3/SECRET-KEY' }),
      (err: Error) => !err.message.includes('SECRET-KEY'),
    );
    assert.throws(
      () => validateChainConfig({ ...evm, rpcTarget: 'gw.example/v3/SECRET-KEY' }),
      (err: Error) => !err.message.includes('SECRET-KEY'),
    );
  });

  it('spells chain ids one way: lowercase hex on eip155, solana:<reference> on solana', () => {
    assert.equal(normalizeChainId('eip155', '0x2105'), '0x2105');
    assert.equal(normalizeChainId('eip155', '0X2105'), undefined);
    assert.equal(normalizeChainId('eip155', '0x002105'), '0x2105');
    assert.equal(normalizeChainId('solana', '0x1'), 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp');
    // Web3Auth's 0x2 and 0x3: the testnet and devnet genesis hashes' first 32 characters (CAIP-2).
    assert.equal(normalizeChainId('solana', '0x2'), 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z');
    assert.equal(normalizeChainId('solana', '0x3'), 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1');
    assert.equal(normalizeChainId('solana', 'solana:abc'), 'solana:abc');
    assert.equal(normalizeChainId('solana', 'abc'), 'solana:abc');
    assert.equal(normalizeChainId('solana', 'solana:'), undefined);
  });
});
