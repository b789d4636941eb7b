import fc from 'fast-check';

/**
 * JSON as a tree that is serialized by hand, so a body can hold what plain objects cannot: duplicate keys, keys such
 * as __proto__, and number tokens JSON.parse turns into Infinity or 0 (1e999, 1e-400).
 */
export type Json = { raw: string } | { items: Json[] } | { entries: Array<[string, Json]> };

export function serialize(value: Json): string {
  if ('raw' in value) return value.raw;
  if ('items' in value) return `[${value.items.map(serialize).join(',')}]`;
  return `{${value.entries.map(([k, v]) => `${JSON.stringify(k)}:${serialize(v)}`).join(',')}}`;
}

export function fromPlain(value: unknown): Json {
  if (Array.isArray(value)) return { items: value.map(fromPlain) };
  if (value !== null && typeof value === 'object') return { entries: Object.entries(value).map(([k, v]) => [k, fromPlain(v)]) };
  return { raw: JSON.stringify(value ?? null) };
}

const raw = (text: string): Json => ({ raw: text });
const str = (text: string): Json => ({ raw: JSON.stringify(text) });

/** Keys that trip object handling, beside random ones. */
export const SPECIAL_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', 'null', '0', 'a.b', '$where', 'length'];

export const keyArb = fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 12 }) }, { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_KEYS) });

/** Number tokens at the edges: int4/int8 bounds, beyond double precision, and tokens that parse to Infinity or 0. */
const NUMBER_TOKENS = [
  '0', '-0', '1', '-1', '1.5', '-2.5', '2147483647', '2147483648', '-2147483649', '4294967296', '9007199254740993',
  '9223372036854775808', '123456789012345678901234567890', '1e308', '1e999', '-1e999', '1e-400', '0.1e1', '1E2', '1000000', '1000001',
];

/** Strings at the edges: NUL and lone surrogates (PostgreSQL text and jsonb refuse NUL), long ones (index rows), dates. */
const STRING_VALUES = [
  '', ' ', 'a\u0000b', '\u0000', '\ud800', '\udfff x', 'é', '😀', '\u202e', "' OR 1=1 --", 'null', 'true', '0', '-1', 'NaN', 'Infinity',
  '1e999', '2026-02-30T00:00:00Z', '0000-01-01T00:00:00Z', '-271821-04-20T00:00:00Z', '+275760-09-13T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z', '2026-01-05 10:00:00 +9999', '2026-01-05T25:61:61Z', '1970-01-01', '2026-01-05', 'Mars/Olympus',
  'America/New_York', 'UTC', 'live', 'draft', 'complete_campaign', 'http://127.0.0.1:1/x', 'file:///etc/passwd', '../../etc/passwd',
];

export const edgeValueArb: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom(...NUMBER_TOKENS).map(raw),
  fc.constantFrom(...STRING_VALUES).map(str),
  // Long strings: either side of an event attribute's length limit (1,024 by default, contract §18), over an index row (2,704 bytes).
  fc.constantFrom(1000, 1024, 1025, 2704, 3000, 9000).map((n) => str('x'.repeat(n))),
  fc.constantFrom('true', 'false', 'null').map(raw),
  fc.constantFrom<Json>({ items: [] }, { entries: [] }, { items: [raw('null')] }, { entries: [['', { entries: [] }]] }),
);

const leafArb: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map(str) },
  { weight: 2, arbitrary: fc.integer().map((n) => raw(String(n))) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => raw(JSON.stringify(n))) },
  { weight: 1, arbitrary: fc.constantFrom('true', 'false', 'null').map(raw) },
  { weight: 2, arbitrary: edgeValueArb },
);

/** Random JSON of any shape, up to a few levels deep. */
export const jsonArb: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafArb,
    fc.array(tie('value'), { maxLength: 5 }).map((items) => ({ items })),
    fc.array(fc.tuple(keyArb, tie('value')), { maxLength: 5 }).map((entries) => ({ entries })),
  ),
})).value;

/** A random object (the form a body must have), possibly with duplicate and special keys. */
export const jsonObjectArb: fc.Arbitrary<Json> = fc.array(fc.tuple(keyArb, jsonArb), { maxLength: 6 }).map((entries) => ({ entries }));

export type Mutation = { path: number[]; kind: 'replace'; value: Json } | { path: number[]; kind: 'drop' } | { path: number[]; kind: 'add'; key: string; value: Json };

/** A change somewhere in a tree: the path picks a child at each level (modulo the count) and stops early at a leaf. */
export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ path: fc.array(fc.nat(), { maxLength: 6 }), kind: fc.constant('replace' as const), value: fc.oneof(edgeValueArb, jsonArb) }) },
  { weight: 1, arbitrary: fc.record({ path: fc.array(fc.nat(), { maxLength: 6 }), kind: fc.constant('drop' as const) }) },
  { weight: 1, arbitrary: fc.record({ path: fc.array(fc.nat(), { maxLength: 6 }), kind: fc.constant('add' as const), key: keyArb, value: jsonArb }) },
);

function children(node: Json): Json[] {
  if ('items' in node) return node.items;
  if ('entries' in node) return node.entries.map(([, v]) => v);
  return [];
}

/** The tree with one mutation applied (a copy; the input is left as it was). */
export function mutate(tree: Json, m: Mutation): Json {
  const walk = (node: Json, depth: number): Json => {
    const kids = children(node);
    if (depth < m.path.length && kids.length > 0) {
      const at = m.path[depth] % kids.length;
      if (m.kind === 'drop' && depth === m.path.length - 1) {
        if ('items' in node) return { items: node.items.filter((_, i) => i !== at) };
        if ('entries' in node) return { entries: node.entries.filter((_, i) => i !== at) };
      }
      if ('items' in node) return { items: node.items.map((v, i) => (i === at ? walk(v, depth + 1) : v)) };
      if ('entries' in node) return { entries: node.entries.map(([k, v], i): [string, Json] => [k, i === at ? walk(v, depth + 1) : v]) };
    }
    if (m.kind === 'replace') return m.value;
    if (m.kind === 'add' && 'entries' in node) return { entries: [...node.entries, [m.key, m.value]] };
    if (m.kind === 'add' && 'items' in node) return { items: [...node.items, m.value] };
    return node;
  };
  return walk(tree, 0);
}

/**
 * Text the JSON body parser must refuse: not JSON, or not an object or array (strict mode). Never empty and never a
 * byte order mark before valid JSON: the parser reads both as a body (`{}`, or the JSON after the mark).
 */
export function invalidJsonArb(example: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.integer({ min: 1, max: Math.max(1, example.length - 1) }).map((n) => example.slice(0, n)),
    fc.constantFrom('{', '}', '{"a":}', '{"a":1,}', "{'a':1}", '{a:1}', '[1,2', 'NaN', 'undefined', '{"a":NaN}', '{"a":Infinity}', '{"a":01}', '// c\n{}'),
    fc.constantFrom('null', 'true', '12', '"text"', ' ', '\ufeffnull', '{"a":"\\x41"}', '{"a":"\\u12"}', '{"a":"\t"}', '{"a" 1}', '\u0000'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).filter((s) => !isJsonObjectText(s)),
    fc.constant(example).map((e) => `${e}${e}`),
  );
}

function isJsonObjectText(text: string): boolean {
  const decoded = Buffer.from(text).toString('utf8').replace(/^\ufeff/, '');
  if (decoded.length === 0) return true;
  try {
    const parsed: unknown = JSON.parse(decoded);
    return typeof parsed === 'object' && parsed !== null;
  } catch {
    return false;
  }
}

/** Deep nesting: thousands of levels of arrays or objects, within the body limit. */
export const deepJsonArb: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(100, 1000, 5000, 20000), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));
