/**
 * The gateway spec's (seeds/000) pending semantics: a pending block has null hash, logsBloom, nonce and number; a
 * pending transaction has null blockHash, blockNumber and transactionIndex. Nodes differ (anvil
 * numbers its pending block), so the gateway enforces the spec on results for the `pending` tag.
 */
export function markPendingBlock(result: unknown): unknown {
  if (!isObject(result)) return result;
  const block: Record<string, unknown> = {
    ...result,
    hash: null,
    logsBloom: null,
    nonce: null,
    number: null,
  };
  if (Array.isArray(block.transactions)) {
    block.transactions = block.transactions.map((tx) => (isObject(tx) ? markPendingTransaction(tx) : tx));
  }
  return block;
}

export function markPendingTransaction(result: unknown): unknown {
  if (!isObject(result)) return result;
  return { ...result, blockHash: null, blockNumber: null, transactionIndex: null };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
