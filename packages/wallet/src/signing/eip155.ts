import {
  type Abi,
  type AbiFunction,
  decodeFunctionData,
  formatEther,
  formatGwei,
  getAbiItem,
  type Hex,
  isAddressEqual,
  isHex,
  size,
  slice,
  toFunctionSignature,
} from 'viem';
import type { KnownContract, SigningDetails, SigningField } from './types.ts';

/** At most this many message fields of typed data are listed; the rest are counted. */
const MAX_TYPED_FIELDS = 200;
/** Calldata longer than this many hex characters is shown cut, with its size. */
const MAX_DATA_CHARS = 2048;

const DOMAIN_LABELS: Record<string, string> = {
  name: 'Domain name',
  version: 'Domain version',
  chainId: 'Domain chain ID',
  verifyingContract: 'Domain contract',
  salt: 'Domain salt',
};

function display(value: unknown): SigningField['value'] {
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  if (typeof value === 'string') return value;
  return JSON.stringify(value, (_key, item) => (typeof item === 'bigint' ? item.toString() : item));
}

const formatOf = (value: string): SigningField['format'] => (isHex(value) ? 'code' : 'text');

/** EIP-712 typed data: the domain, the primary type and every message field (nested ones by path). */
export function describeTypedData(typedData: {
  domain?: Record<string, unknown>;
  primaryType: string;
  message: Record<string, unknown>;
}): SigningDetails {
  const fields: SigningField[] = [];
  for (const [key, value] of Object.entries(typedData.domain ?? {})) {
    if (value === undefined) continue;
    const text = display(value);
    fields.push({
      label: Object.hasOwn(DOMAIN_LABELS, key) ? DOMAIN_LABELS[key] : `Domain ${key}`,
      value: text,
      format: formatOf(text),
    });
  }
  fields.push({ label: 'Primary type', value: typedData.primaryType, format: 'text' });
  let skipped = 0;
  const walk = (value: unknown, path: string) => {
    if (value !== null && typeof value === 'object') {
      const entries = Array.isArray(value)
        ? value.map((item, index) => [`${path}[${index}]`, item] as const)
        : Object.entries(value).map(([key, item]) => [path ? `${path}.${key}` : key, item] as const);
      if (entries.length === 0)
        fields.push({ label: path, value: Array.isArray(value) ? '[]' : '{}', format: 'code' });
      for (const [childPath, item] of entries) walk(item, childPath);
      return;
    }
    if (fields.length >= MAX_TYPED_FIELDS) {
      skipped++;
      return;
    }
    const text = display(value);
    fields.push({ label: path, value: text, format: formatOf(text) });
  };
  walk(typedData.message, '');
  if (skipped > 0) fields.push({ label: 'More fields', value: `${skipped} not shown`, format: 'text' });
  const name = typeof typedData.domain?.name === 'string' ? ` for ${typedData.domain.name}` : '';
  return { title: 'Signature request', summary: `Sign typed data (${typedData.primaryType})${name}`, fields };
}

export type EvmTransactionView = {
  from: string;
  to?: string | null;
  value?: bigint;
  data?: Hex;
  gas?: bigint;
  maxFeePerGas?: bigint;
  gasPrice?: bigint;
};

/** The called function of a known contract, decoded with its ABI; undefined when it does not decode. */
function decodeCall(contract: KnownContract, data: Hex) {
  const abi = contract.abi as Abi;
  try {
    const { functionName, args } = decodeFunctionData({ abi, data });
    const item = getAbiItem({ abi, name: slice(data, 0, 4) }) as AbiFunction | undefined;
    if (!item) return undefined;
    return { functionName, signature: toFunctionSignature(item), inputs: item.inputs, args: args ?? [] };
  } catch {
    return undefined;
  }
}

/**
 * eth_sendTransaction: recipient, value in ETH, the called function's selector and, for a known
 * contract, its decoded name and arguments; gas and the most the fees can cost.
 */
export function describeEvmTransaction(
  tx: EvmTransactionView,
  contracts: readonly KnownContract[],
): SigningDetails {
  const fields: SigningField[] = [];
  const value = tx.value ?? 0n;
  const data = tx.data && tx.data !== '0x' ? tx.data : undefined;
  const to = tx.to ?? undefined;
  fields.push(
    to
      ? { label: 'To', value: to, format: 'code' }
      : { label: 'To', value: 'New contract (deployment)', format: 'text' },
  );
  fields.push({ label: 'Value', value: `${formatEther(value)} ETH`, format: 'text' });
  const contract = to
    ? contracts.find((known) => isAddressEqual(known.address as Hex, to as Hex))
    : undefined;
  let summary = to ? `Send ${formatEther(value)} ETH to ${to}` : 'Deploy a contract';
  if (data && to && size(data) >= 4) {
    const selector = slice(data, 0, 4);
    fields.push({ label: 'Function selector', value: selector, format: 'code' });
    const call = contract ? decodeCall(contract, data) : undefined;
    if (contract && call) {
      fields.push({ label: 'Contract', value: contract.name, format: 'text' });
      fields.push({ label: 'Function', value: call.signature, format: 'code' });
      call.inputs.forEach((input, index) => {
        const text = display(call.args[index]);
        fields.push({
          label: `${input.name || `argument ${index + 1}`} (${input.type})`,
          value: text,
          format: formatOf(text),
        });
      });
      summary = `Call ${contract.name}.${call.functionName} on ${to}`;
    } else {
      summary = `Call function ${selector} on ${to}`;
    }
    if (value > 0n) summary += ` with ${formatEther(value)} ETH`;
  }
  if (data) {
    const shown =
      data.length > MAX_DATA_CHARS ? `${data.slice(0, MAX_DATA_CHARS)}… (${size(data)} bytes)` : data;
    fields.push({ label: 'Data', value: shown, format: 'code' });
  }
  if (tx.gas !== undefined) {
    fields.push({ label: 'Gas limit', value: tx.gas.toString(), format: 'text' });
    const perGas = tx.maxFeePerGas ?? tx.gasPrice;
    if (perGas !== undefined) {
      fields.push({
        label: 'Max network fee',
        value: `${formatEther(tx.gas * perGas)} ETH (${formatGwei(perGas)} gwei per gas)`,
        format: 'text',
      });
    }
  }
  return { title: 'Transaction request', summary, fields };
}
