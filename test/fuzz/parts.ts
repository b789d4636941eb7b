import fc from 'fast-check';

/**
 * Pieces of requests: path segments, query strings, header values. Everything here is well-formed HTTP (Node's own
 * parser answers malformed requests before the app sees them); what is inside is not.
 */

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD, as on any client). */
export function encode(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

/** What the server decodes a segment to, or null when it cannot be decoded. */
export function decoded(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** Segments sent as is: numbers out of range, dot segments, broken and overlong percent-encodings, path words. */
const RAW_SEGMENTS = [
  '0', '-1', '-2147483648', '2147483648', '4294967296', '99999999999999999999', '9'.repeat(300), '1.5', '1e3', '+1', '%201', '0x10',
  'NaN', 'null', 'undefined', 'true', '..', '.', '%2e%2e', '%2E', '%2F', '%2f..%2f', '%00', '%zz', '%', '%E0%A4%A', '%C0%AE',
  '%FF%FE', '%ED%A0%80', '%25', '%252e', ';', ',', '*', '~', '_batch', 'external', 'users', 'me', 'a;b=c', '%0D%0A', '%20', '%5B%5D',
  '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '{8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a}', '%C3%A9', '%E9', '%FF%FF',
];

/** Path segments that name nothing: junk of every kind, already encoded for the path. */
export const garbageSegmentArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  { weight: 2, arbitrary: fc.uuid().map((u) => (u.length % 2 ? u : u.toUpperCase())) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 24 }).map(encode) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }).map(encode) },
  { weight: 2, arbitrary: fc.integer({ min: -1_000_000_000, max: 2_000_000_000 }).map(String) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 4000 }).map((n) => 'a'.repeat(n)) },
);

/** Query parameter names: the documented ones, the usual ones, array and nested forms, prototype keys, and random. */
const QUERY_KEYS = [
  'page', 'limit', 'explain', 'async', 'qualify', 'division_ids', 'division_ids[]', 'division_ids[0]', 'sections[]', 'filters[]', 'creatives[]',
  'a[]', 'a[b]', 'page[]', 'limit[x]', 'page[toString]', '__proto__', '__proto__[x]', 'constructor[prototype][x]', 'a[b][c][d][e][f][g]',
  'read_only', 'events', 'api_key',
];

const QUERY_VALUES = [
  '', '0', '1', '-1', '2', '10', '100', '101', '1000000', '2147483648', '99999999999999999999', '1e2', '1.5', '%201', '0x10', 'NaN', 'Infinity',
  'true', 'false', 'TRUE', 'yes', 'null', '1,2', '1,,2', ',', '%20', 'abc', '%zz', '%00', '%E0%A4%A', '%F0%9F%93%A6', 'progress', 'tile', 'all',
];

const queryPairArb = fc.tuple(
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...QUERY_KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map(encode) }),
  fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...QUERY_VALUES) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(encode) }),
  fc.boolean(),
);

const join = (pairs: Array<[string, string, boolean]>) => `?${pairs.map(([k, v, withValue]) => (withValue ? `${k}=${v}` : k)).join('&')}`;

/**
 * A query string (with its `?`, or empty): the documented parameters with values they accept (so the request goes
 * on to the handler), or with junk, random pairs, repeated keys, bare keys.
 */
export function queryArb(documented: Record<string, string[]>): fc.Arbitrary<string> {
  const names = Object.keys(documented);
  const allowed = Object.entries(documented).filter(([, values]) => values.length > 0);
  const validPair = allowed.length
    ? fc.constantFrom(...allowed).chain(([name, values]) => fc.tuple(fc.constant(encode(name).replace(/%5B%5D$/, '[]')), fc.constantFrom(...values.map(encode)), fc.constant(true)))
    : queryPairArb;
  const junkPair = names.length ? fc.tuple(fc.constantFrom(...names), fc.constantFrom(...QUERY_VALUES), fc.constant(true)) : queryPairArb;
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 3, arbitrary: fc.array(validPair, { minLength: 1, maxLength: 3 }).map(join) },
    { weight: 4, arbitrary: fc.array(fc.oneof(validPair, junkPair, queryPairArb), { minLength: 1, maxLength: 6 }).map(join) },
    { weight: 1, arbitrary: fc.constantFrom('?', '?&&', '?=', '?=1', '?a[=1', '?a]=1', '?a[][]=1', '?%zz=1', `?${'a[]=1&'.repeat(1200)}`, `?page=${'9'.repeat(500)}`) },
  );
}

/** A character Node lets a client put in a header value: printable ASCII or Latin-1 (no controls, no DEL). */
const latin1Char = fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c));

/** x-request-id values: sane ones are echoed, the rest replaced by a new id. */
export const requestIdArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/) },
  { weight: 2, arbitrary: fc.constantFrom('', ' ', 'a b', 'x'.repeat(129), 'é', '../..', '<script>', 'a\tb', '%00', 'id,id', '{}') },
  { weight: 1, arbitrary: fc.string({ unit: latin1Char, maxLength: 40 }) },
);

/** Printable header values (ASCII and Latin-1, what Node lets a client send), sometimes long. */
export const headerValueArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: latin1Char, maxLength: 30 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 8000 }).map((n) => 'v'.repeat(n)) },
);

/** Other headers a client may send, harmless or not. */
export const extraHeadersArb: fc.Arbitrary<Record<string, string>> = fc
  .array(fc.tuple(fc.constantFrom('x-forwarded-for', 'x-http-method-override', 'accept', 'accept-charset', 'cookie', 'x-api-key', 'origin', 'x-custom', 'if-none-match', 'range'), headerValueArb), {
    maxLength: 3,
  })
  .map((pairs) => Object.fromEntries(pairs));

/** Content types of a body: JSON ones the parser reads, and others it leaves unread. */
export const contentTypeArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1',
      'application/json; charset=utf-16', 'application/json; charset=nope', 'application/vnd.api+json', 'application/*', ';;;', 'json', 'text/json',
    ),
  },
);

export const contentEncodingArb: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-zip', 'gzip, gzip') },
);
