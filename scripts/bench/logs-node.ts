// A stand-in EVM node for the wide eth_getLogs row, run in a process of its own: a chain of HEAD
// blocks with one log in every EVERY-th block, answering what the gateway asks of it (chain id,
// head, blocks by number or tag, eth_getLogs over any range of it). anvil makes 100,000 blocks
// too slowly on a loaded two-core machine (anvil_mine: 2 to 10 ms a block, slower as the chain grows).
// node --import tsx scripts/bench/logs-node.ts HEAD EVERY
import { createServer } from 'node:http';

const HEAD = Number(process.argv[2] ?? '200000');
const EVERY = Number(process.argv[3] ?? '8');
const ADDRESS = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
const TOPIC = '0xc6d8c0af6d21f291e7c359603aa97e0ed500f04db6e983b9fce75a91c6b8da6b';

const hex = (n: number) => `0x${n.toString(16)}`;
const hash = (n: number, salt: string) => `0x${salt}${n.toString(16).padStart(64 - salt.length, '0')}`;

function block(n: number) {
  return {
    number: hex(n),
    hash: hash(n, 'b'),
    parentHash: hash(Math.max(0, n - 1), 'b'),
    timestamp: hex(1_700_000_000 + n),
    gasLimit: '0x1c9c380',
    gasUsed: '0x0',
    baseFeePerGas: '0x1',
    transactions: [],
    uncles: [],
  };
}

function log(n: number) {
  return {
    address: ADDRESS,
    topics: [TOPIC, `0x000000000000000000000000f39fd6e51aad88f6f4ce6ab8827279cfffb92266`],
    data: hex(n).padEnd(66, '0'),
    blockNumber: hex(n),
    blockHash: hash(n, 'b'),
    blockTimestamp: hex(1_700_000_000 + n),
    transactionHash: hash(n, 't'),
    transactionIndex: '0x0',
    logIndex: '0x0',
    removed: false,
  };
}

function numberOf(tag: unknown): number {
  if (typeof tag === 'string' && tag.startsWith('0x')) return Math.min(Number(tag), HEAD);
  return tag === 'earliest' ? 0 : HEAD;
}

function answer(method: string, params: unknown[]): unknown {
  switch (method) {
    case 'eth_chainId':
      return '0x7a69';
    case 'eth_blockNumber':
      return hex(HEAD);
    case 'eth_getBlockByNumber':
      return block(numberOf(params[0]));
    case 'eth_getLogs': {
      const filter = (params[0] ?? {}) as { fromBlock?: string; toBlock?: string };
      const logs = [];
      const from = numberOf(filter.fromBlock ?? 'latest');
      for (let n = Math.ceil(from / EVERY) * EVERY; n <= numberOf(filter.toBlock ?? 'latest'); n += EVERY)
        logs.push(log(n));
      return logs;
    }
    default:
      return null;
  }
}

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const request = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: request.id,
      result: answer(request.method, request.params ?? []),
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`listening ${address.port}`);
});
process.once('SIGTERM', () => process.exit(0));
