// fast-check arbitraries for hostile JSON-RPC bodies, written as JSON text (so that ids such as
// 12345678901234567890 or 1.0 are sent exactly as written), with what the gateway must answer to
// each item. Used by the fuzz suite (fuzz.test.ts).
import fc from 'fast-check';

/** A JSON value as text is built: `raw` is written as it is (numbers, deep nests, junk). */
export type Json =
  | { raw: string; depth?: number }
  | string
  | boolean
  | null
  | Json[]
  | { members: [string, Json][] };

export function toText(value: Json): string {
  if (value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(toText).join(',')}]`;
  if ('raw' in value) return value.raw;
  return `{${value.members.map(([key, member]) => `${JSON.stringify(key)}:${toText(member)}`).join(',')}}`;
}

/** Nesting depth of arrays and objects, as the gateway counts it (the body itself is level 1). */
export function depthOf(value: Json): number {
  if (value === null || typeof value !== 'object') return 0;
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if ('raw' in value) return value.depth ?? 0;
  return 1 + Math.max(0, ...value.members.map(([, member]) => depthOf(member)));
}

/** A plain value (a valid parameter) as Json. */
export function fromPlain(value: unknown): Json {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return { raw: String(value) };
  if (Array.isArray(value)) return value.map(fromPlain);
  return { members: Object.entries(value as object).map(([key, member]) => [key, fromPlain(member)]) };
}

export const PROTOTYPE_NAMES = [...Object.getOwnPropertyNames(Object.prototype), '__proto__'];

const CALL_MEMBERS = [
  'to',
  'from',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'value',
  'data',
  'input',
  'nonce',
  'type',
  'chainId',
  'accessList',
  'authorizationList',
];
const OVERRIDE_MEMBERS = [
  'balance',
  'nonce',
  'code',
  'state',
  'stateDiff',
  'number',
  'time',
  'prevRandao',
  'feeRecipient',
  'withdrawals',
  'blockNumber',
  'blockHash',
];

/** Number texts: plain, beyond 2^53 and 2^64 and 2^256, fractions, exponents, -0. */
export const numberText = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
  fc.constantFrom(
    '1.0',
    '1e3',
    '-0',
    '1E+2',
    '0.50',
    '1e400',
    '-1e-7',
    '1.5e300',
    '18446744073709551615',
    '12345678901234567890',
    '9'.repeat(65),
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
);

const hexDigits = (length: fc.Arbitrary<number>) =>
  length.chain((n) =>
    fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: n, maxLength: n }),
  );

/** Hex strings of every width that matters (u64, u128, u256 edges), odd lengths, leading zeros. */
export const hexText = fc.oneof(
  hexDigits(fc.integer({ min: 0, max: 80 })).map((digits) => `0x${digits}`),
  fc.constantFrom(16, 17, 32, 33, 40, 64, 65).map((n) => `0x${'f'.repeat(n)}`),
  fc.constantFrom(16, 32, 64).map((n) => `0x1${'0'.repeat(n)}`),
  fc.constantFrom(
    '0x',
    '0x0',
    '0x00',
    '0x01',
    '0X1',
    '0xg',
    'latest',
    'pending',
    'earliest',
    'safe',
    'finalized',
    'LATEST',
  ),
);

const leaf: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: numberText.map((raw) => ({ raw })), weight: 8 },
  { arbitrary: hexText, weight: 8 },
  { arbitrary: fc.constantFrom(...PROTOTYPE_NAMES), weight: 4 },
  { arbitrary: fc.string({ maxLength: 20 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 10 }), weight: 2 },
  { arbitrary: fc.constant('x'.repeat(2000)), weight: 2 },
  { arbitrary: fc.boolean(), weight: 2 },
  { arbitrary: fc.constant(null), weight: 2 },
  // Nesting around the depth limit (64) and far beyond it.
  fc.oneof(fc.integer({ min: 1, max: 70 }), fc.integer({ min: 1000, max: 6000 })).map((depth) => ({
    raw: `${'['.repeat(depth)}${']'.repeat(depth)}`,
    depth,
  })),
);

const memberName = fc.oneof(
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.constantFrom(...CALL_MEMBERS, ...OVERRIDE_MEMBERS),
  fc.string({ maxLength: 10 }),
);

/** Any JSON value a hostile client might put anywhere: leaves, small arrays and objects. */
export const hostileValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(memberName, tie('value')), { maxLength: 4 }).map((members) => ({ members })),
  ),
})).value;

/** A valid call of a method, by method name: the starting point of every mutation. */
export type Templates = Readonly<Record<string, unknown[]>>;

/** Params of `method`: its valid template, or the template with one hostile change. */
function paramsOf(method: string, templates: Templates): fc.Arbitrary<Json> {
  const template = Object.hasOwn(templates, method) ? templates[method].map(fromPlain) : [];
  const withMember = (target: Json | undefined, name: string, value: Json): Json =>
    target !== null && typeof target === 'object' && !Array.isArray(target) && 'members' in target
      ? { members: [...target.members, [name, value]] }
      : { members: [[name, value]] };
  const replaced = (at: number, value: Json): Json[] => {
    const params = [...template];
    params[at] = value;
    return params;
  };
  const override = (name: string, value: Json): Json[] => [
    ...template.slice(0, 2),
    { members: [[`0x${'11'.repeat(20)}`, { members: [[name, value]] }]] },
    { members: [[name, value]] },
  ];
  return fc.oneof(
    { arbitrary: fc.constant<Json>(template), weight: 4 },
    // One position replaced (or appended) with a value of the wrong type or size.
    fc.tuple(fc.nat({ max: template.length }), hostileValue).map(([at, value]): Json => replaced(at, value)),
    // A hostile member in the first object parameter (call object, filter) or an override object.
    fc
      .tuple(memberName, hostileValue)
      .map(([name, value]): Json => [withMember(template[0], name, value), ...template.slice(1)]),
    fc
      .tuple(fc.constantFrom(...CALL_MEMBERS), hexText)
      .map(([name, value]): Json => [withMember(template[0], name, value), ...template.slice(1)]),
    fc
      .tuple(fc.constantFrom(...OVERRIDE_MEMBERS), hostileValue)
      .map(([name, value]) => override(name, value)),
    fc.constant(template.slice(0, -1)),
    hostileValue,
  );
}

/** What the gateway must answer to one item of a body. */
export type ItemExpectation = {
  method: string;
  /** undefined: a notification (no answer); else the id the answer must carry (null for an invalid id). */
  id?: { number: string } | { string: string } | null;
  /** The item is not a request object (or its id is not a valid id): -32600. */
  invalid: boolean;
};

export type HostileBody = {
  text: string;
  /** For a body that parses: its items, in order. */
  items?: ItemExpectation[];
  batch: boolean;
  depth: number;
  /** The gateway refuses the whole body with this code. */
  refusedWith?: number;
  /** The id of the refusal: a body too deep still carries the id it can be read for; else null. */
  refusedId?: ItemExpectation['id'];
  /** A truncated deep body may be refused for its depth before the parse fails (with its id or null). */
  orRefusedWith?: number;
};

type IdChoice = { text?: string; expect?: ItemExpectation['id']; valid: boolean; depth?: number };

const idArb: fc.Arbitrary<IdChoice> = fc.oneof(
  {
    arbitrary: fc
      .integer({ min: 0, max: 1000 })
      .map((n) => ({ text: String(n), expect: { number: String(n) }, valid: true })),
    weight: 3,
  },
  numberText.map((text) => ({ text, expect: { number: text }, valid: true })),
  fc
    .oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...PROTOTYPE_NAMES))
    .map((s) => ({ text: JSON.stringify(s), expect: { string: s }, valid: true })),
  fc.constant({ text: 'null', expect: null, valid: true }),
  fc.constantFrom('true', '[]', '{}', '[1]', '{"a":1}').map((text) => ({
    text,
    expect: null,
    valid: false,
    depth: text === 'true' ? 0 : 1,
  })),
  fc.constant({ valid: true }),
);

/** A request object (or a junk item) and what must be answered to it. */
function itemArb(
  methods: fc.Arbitrary<string>,
  templates: Templates,
  inBatch: boolean,
): fc.Arbitrary<{ json: Json; expect: ItemExpectation }> {
  const request = fc
    .record({
      method: methods,
      id: idArb,
      jsonrpc: fc.oneof(
        { arbitrary: fc.constant<Json>('2.0'), weight: 9 },
        fc.constantFrom<Json>('1.0', { raw: '2' }, null),
      ),
      extra: fc.option(fc.tuple(fc.constantFrom(...PROTOTYPE_NAMES), hostileValue), { freq: 8 }),
    })
    .chain(({ method, id, jsonrpc, extra }) =>
      paramsOf(method, templates).map((params) => {
        const members: [string, Json][] = [['jsonrpc', jsonrpc]];
        if (id.text !== undefined) members.push(['id', { raw: id.text, depth: id.depth }]);
        members.push(['method', method], ['params', params]);
        if (extra) members.push(extra);
        const shaped = jsonrpc === '2.0' && method.length > 0 && isArrayOrObjectOrNull(params);
        const invalid = !id.valid || !shaped;
        // An item that is not a request is answered even without an id, with id null.
        const answeredId = !id.valid
          ? null
          : id.text === undefined
            ? invalid
              ? null
              : undefined
            : id.expect;
        return { json: { members } as Json, expect: { method, id: answeredId, invalid } };
      }),
    );
  // A junk array is an item inside a batch; as a whole body it would be a batch of its own.
  const junk = fc
    .oneof(
      numberText.map<Json>((raw) => ({ raw })),
      fc.string({ maxLength: 8 }),
      fc.constant<Json>(null),
      inBatch ? fc.array(leaf, { maxLength: 2 }) : fc.boolean(),
    )
    .map((json) => ({ json, expect: { method: '(junk)', id: null, invalid: true } }));
  return fc.oneof({ arbitrary: request, weight: 9 }, junk);
}

/** `params` that parseItem takes (an array, an object, or null for none). */
function isArrayOrObjectOrNull(params: Json): boolean {
  if (params === null || Array.isArray(params)) return true;
  if (typeof params !== 'object') return false;
  return 'members' in params || (params.depth ?? 0) > 0;
}

function fromItems(
  items: { json: Json; expect: ItemExpectation }[],
  batch: boolean,
  maxDepth: number,
): HostileBody {
  const json: Json = batch ? items.map((item) => item.json) : items[0].json;
  const depth = depthOf(json);
  const text = toText(json);
  if (depth > maxDepth)
    return {
      text,
      batch,
      depth,
      refusedWith: -32600,
      refusedId: batch ? null : (items[0].expect.id ?? null),
    };
  if (batch && items.length === 0) return { text, batch, depth, refusedWith: -32600 };
  return { text, batch, depth, items: items.map((item) => item.expect) };
}

/** Structured bodies (single requests and batches) plus malformed, oversized and junk ones. */
export function hostileBody(
  methods: fc.Arbitrary<string>,
  templates: Templates,
  maxDepth: number,
): fc.Arbitrary<HostileBody> {
  const single = itemArb(methods, templates, false).map((one) => fromItems([one], false, maxDepth));
  const batch = fc
    .array(itemArb(methods, templates, true), { maxLength: 8 })
    .map((items) => fromItems(items, true, maxDepth));
  const truncated = fc
    .tuple(
      single.filter((body) => body.text.startsWith('{')),
      fc.double({ min: 0, max: 0.999, noNaN: true }),
    )
    .map(([body, at]) => ({
      text: body.text.slice(0, Math.floor(body.text.length * at)),
      batch: false,
      depth: 0,
      refusedWith: -32700,
      orRefusedWith: body.depth > maxDepth ? -32600 : undefined,
      refusedId: body.refusedId,
    }));
  const oversized = fc.constant<HostileBody>({
    text: `[${Array(170_000).fill('{}').join(',')}]`,
    batch: true,
    depth: 2,
    refusedWith: -32014,
  });
  return fc
    .oneof(
      { arbitrary: single, weight: 30 },
      { arbitrary: batch, weight: 15 },
      { arbitrary: truncated, weight: 5 },
      { arbitrary: oversized, weight: 1 },
    )
    .map(shortInReports);
}

/** fast-check prints a failing body with its text cut short (the oversized one is 510 kB). */
function shortInReports(body: HostileBody): HostileBody {
  const shown =
    body.text.length > 500 ? `${body.text.slice(0, 500)}… (${body.text.length} characters)` : body.text;
  return Object.assign(body, { [fc.toStringMethod]: () => `HostileBody ${JSON.stringify(shown)}` });
}

/**
 * Bodies found charged or answered with the wrong id by hand (issue 25), replayed on every run
 * before the random ones: refusals by the node (-32602) that must cost nothing, an integer no
 * double holds, ids of hundreds of digits, and a refusal for depth whose id is readable.
 */
export function seedBodies(to: string, maxDepth: number): HostileBody[] {
  const one = (method: string, params: string, id = '1'): HostileBody => ({
    text: `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${params}}`,
    batch: false,
    depth: 3,
    items: [{ method, id: { number: id }, invalid: false }],
  });
  const maxPriorityAlone = one('eth_call', `[{"to":"${to}","maxPriorityFeePerGas":"0x10"},"latest"]`);
  const blockOutOfRange = one('eth_estimateGas', `[{"to":"${to}"},"0xffffffffffffffff"]`);
  const inexact = one('eth_getBalance', `["${to}",{"minContextSlot":12345678901234567890}]`);
  // A double would forward null and a rounded number: refused before forwarding, free.
  const rounded = one('net_version', '[1e400,{"minContextSlot":1.2345678901234567890e19}]');
  const longId = '9'.repeat(300);
  const deep = `${'['.repeat(maxDepth + 1)}${']'.repeat(maxDepth + 1)}`;
  return [
    maxPriorityAlone,
    blockOutOfRange,
    inexact,
    rounded,
    // params that is a number (1e400 beyond a double) is an invalid request, not a parameter error.
    {
      text: '{"jsonrpc":"2.0","id":"p","method":"eth_estimateGas","params":1e400}',
      batch: false,
      depth: 1,
      items: [{ method: 'eth_estimateGas', id: { string: 'p' }, invalid: true }],
    },
    {
      text: `[${[maxPriorityAlone, blockOutOfRange, inexact].map((body) => body.text).join(',')}]`,
      batch: true,
      depth: 4,
      items: [maxPriorityAlone, blockOutOfRange, inexact].flatMap((body) => body.items ?? []),
    },
    one('eth_blockNumber', '[]', longId),
    one('eth_blockNumber', '[]', `-${'1'.repeat(2000)}.5e-300`),
    {
      text: `{"jsonrpc":"2.0","id":${longId},"method":"eth_getBalance","params":[${deep}]}`,
      batch: false,
      depth: maxDepth + 3,
      refusedWith: -32600,
      refusedId: { number: longId },
    },
  ].map(shortInReports);
}

/** Whether the gateway answers the body at all (a body of notifications only gets no answer). */
export const expectsAnswer = (body: HostileBody) =>
  body.refusedWith !== undefined || (body.items ?? []).some((item) => item.id !== undefined);
