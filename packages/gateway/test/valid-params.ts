// Parameters valid by the execution-apis schemas (within the widths nodes decode) for the spec's
// nine EVM methods and eth_getLogs: the over-rejection oracles draw from them, in process
// (src/methods/evm/valid-params.test.ts) and over HTTP against a node (valid-requests.test.ts).
import fc from 'fast-check';

export type ValidParamsChain = {
  /** The head the drawn block numbers stay around (tags, logs ranges). */
  head: number;
  /** The block gas limit the gas cap is derived from. */
  blockGasLimit: bigint;
  /** The widest eth_getLogs range drawn. */
  maxLogsRange: number;
};

/** Arbitraries of valid params for each method, for a chain of this head and gas limit. */
export function validParams({
  head: HEAD,
  blockGasLimit: BLOCK_GAS_LIMIT,
  maxLogsRange: MAX_LOGS_RANGE,
}: ValidParamsChain): Record<string, fc.Arbitrary<unknown[]>> {
  const hexDigits = (min: number, max: number) =>
    fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: min, maxLength: max });
  /** A hex quantity below 2^bits, without leading zeros. */
  const quantity = (bits: number, max = (1n << BigInt(bits)) - 1n) =>
    fc.bigInt({ min: 0n, max }).map((n) => `0x${n.toString(16)}`);
  const hash = hexDigits(64, 64).map((d) => `0x${d}`);
  const address = hexDigits(40, 40).map((d) => `0x${d}`);
  const bytes = fc.uint8Array({ maxLength: 40 }).map((b) => `0x${Buffer.from(b).toString('hex')}`);
  const tag = fc.constantFrom('latest', 'earliest', 'pending', 'safe', 'finalized');
  const blockParameter = fc.oneof(tag, quantity(64));
  const blockOrEip1898 = fc.oneof(
    blockParameter,
    fc.record({ blockHash: hash, requireCanonical: fc.boolean() }, { requiredKeys: ['blockHash'] }),
    fc.record({ blockNumber: blockParameter }),
  );
  const bool = fc.boolean();

  /** A GenericTransaction as wallets and libraries send it: any subset of its members, consistent. */
  const callObject = fc
    .record(
      {
        from: address,
        to: fc.oneof(address, fc.constant(null)),
        gas: quantity(64, BLOCK_GAS_LIMIT * 10n),
        gasPrice: quantity(128),
        maxFeePerGas: quantity(128),
        maxPriorityFeePerGas: quantity(128),
        maxFeePerBlobGas: quantity(128),
        value: quantity(256),
        nonce: quantity(64),
        type: quantity(8),
        chainId: quantity(64),
        data: bytes,
        accessList: fc.array(fc.record({ address, storageKeys: fc.array(hash, { maxLength: 3 }) }), {
          maxLength: 3,
        }),
        blobVersionedHashes: fc.array(hash, { maxLength: 3 }),
        authorizationList: fc.array(
          fc.record(
            {
              address,
              chainId: quantity(256),
              nonce: quantity(64),
              r: quantity(256),
              s: quantity(256),
              yParity: quantity(8),
            },
            { requiredKeys: ['address', 'chainId', 'nonce', 'r', 's'] },
          ),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: [] },
    )
    .chain((call) =>
      fc
        .record({
          sendInputToo: fc.boolean(),
          tipShare: fc.oneof(fc.constant(100n), fc.bigInt({ min: 0n, max: 100n })),
        })
        .map(({ sendInputToo, tipShare }) => {
          const shaped: Record<string, unknown> = { ...call };
          // web3.js sends both data and input, equal.
          if (sendInputToo && call.data !== undefined) shaped.input = call.data;
          // A tip is at most the fee cap (equal is common).
          if (call.maxFeePerGas !== undefined && call.maxPriorityFeePerGas !== undefined) {
            shaped.maxPriorityFeePerGas = `0x${((BigInt(call.maxFeePerGas) * tipShare) / 100n).toString(16)}`;
          }
          return shaped;
        }),
    );

  const storage = fc.dictionary(hash, hash, { maxKeys: 2 });
  const stateOverride = fc.dictionary(
    address,
    fc.oneof(
      fc.record(
        { balance: quantity(256), nonce: quantity(64), code: bytes, state: storage },
        { requiredKeys: [] },
      ),
      fc.record(
        { balance: quantity(256), stateDiff: storage, movePrecompileToAddress: address },
        { requiredKeys: [] },
      ),
    ),
    { maxKeys: 2 },
  );
  const blockOverride = fc.record(
    {
      number: quantity(64),
      prevRandao: hash,
      time: quantity(64),
      gasLimit: quantity(64),
      feeRecipient: address,
      baseFeePerGas: quantity(256),
      blobBaseFee: quantity(64),
      withdrawals: fc.array(
        fc.record({ index: quantity(64), validatorIndex: quantity(64), address, amount: quantity(64) }),
        { maxLength: 16 },
      ),
    },
    { requiredKeys: [] },
  );

  const receiptsBlock = fc.oneof(
    tag,
    quantity(64),
    hash,
    fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map(String),
    fc.nat(),
    fc.constant(0),
  );

  const logsFilter = fc.oneof(
    fc
      .record({
        from: fc.integer({ min: 0, max: HEAD }),
        span: fc.integer({ min: 1, max: MAX_LOGS_RANGE }),
        address: fc.oneof(address, fc.array(address, { maxLength: 3 })),
      })
      .map(({ from, span, address }) => ({
        fromBlock: `0x${from.toString(16)}`,
        toBlock: `0x${Math.min(HEAD, from + span - 1).toString(16)}`,
        address,
      })),
    fc.record({ blockHash: hash, address }, { requiredKeys: ['blockHash'] }),
    fc.record(
      { fromBlock: fc.constantFrom('latest', 'safe', 'finalized', `0x${(HEAD - 5).toString(16)}`) },
      { requiredKeys: [] },
    ),
  );

  /** Valid params of each of the ten methods. */
  return {
    eth_getBlockByHash: fc.tuple(hash, bool),
    eth_getBlockByNumber: fc.tuple(blockParameter, bool),
    eth_getUncleByBlockNumberAndIndex: fc.tuple(blockParameter, quantity(64)),
    eth_getTransactionByBlockNumberAndIndex: fc.tuple(blockParameter, quantity(64)),
    eth_getTransactionByHash: fc.tuple(hash),
    eth_getTransactionReceipt: fc.tuple(hash),
    eth_getBlockReceipts: fc.tuple(receiptsBlock),
    eth_call: fc.oneof(
      fc.tuple(callObject, blockOrEip1898),
      fc.tuple(callObject, blockOrEip1898, fc.oneof(stateOverride, fc.constant(null))),
      fc.tuple(
        callObject,
        blockOrEip1898,
        fc.oneof(stateOverride, fc.constant(null)),
        fc.oneof(blockOverride, fc.constant(null)),
      ),
    ),
    eth_estimateGas: fc.oneof(
      fc.tuple(callObject),
      fc.tuple(callObject, blockOrEip1898),
      fc.tuple(callObject, blockOrEip1898, stateOverride),
    ),
    eth_getLogs: fc.tuple(logsFilter),
  };
}
