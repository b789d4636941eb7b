import fc from 'fast-check';
import { anyAuthArb, Credentials, invalidAdminAuthArb, invalidPrivAuthArb, validAuth } from './auth.js';
import type { RawRequest } from './client.js';
import { deepJsonArb, fromPlain, invalidJsonArb, jsonArb, jsonObjectArb, keyArb, mutate, mutationArb, serialize } from './json.js';
import { contentEncodingArb, contentTypeArb, decoded, encode, extraHeadersArb, garbageSegmentArb, queryArb, requestIdArb } from './parts.js';
import { fill, Route } from './routes.js';
import type { Ids } from './world.js';

export interface World {
  routes: Route[];
  /** Ids of the organization the credentials belong to. */
  own: Ids;
  /** Ids of another organization. */
  other: Ids;
  creds: Credentials;
}

/** Node answers 431 itself above 16 KiB of request line and headers: stay below, the app must see the request. */
const MAX_HEAD = 14_000;

function headSize(req: RawRequest): number {
  return req.path.length + Object.entries(req.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
}

/** A segment the server decodes to the object `own` names (its value, or the same id spelled otherwise). */
function namesOwn(segment: string, own: string): boolean {
  const value = decoded(segment);
  if (value === null) return false;
  if (value.trim().toLowerCase() === own.toLowerCase()) return true;
  return /^\s*\+?\d+\s*$/.test(value) && /^\d+$/.test(own) && Number(value) === Number(own);
}

/** Every id in the test database is far below this: a number under it may name some object. */
const MAX_REAL_ID = 1_000_000;

function mayNameAnything(segment: string): boolean {
  const value = decoded(segment);
  return value !== null && /^\s*\+?\d+\s*$/.test(value) && Number(value) >= 1 && Number(value) < MAX_REAL_ID;
}

/**
 * A segment that names no object the credentials can reach: junk that cannot be an id in use, or (for /priv routes)
 * another organization's id.
 */
function invalidSegmentArb(world: World, route: Route, param: string): fc.Arbitrary<string> {
  const pools = [garbageSegmentArb.filter((s) => !mayNameAnything(s))];
  if (route.kind === 'priv' && world.other[param]) pools.push(fc.constant(encode(world.other[param])));
  return fc.oneof(...pools).filter((s) => !world.own[param] || !namesOwn(s, world.own[param]));
}

/** Any segment: the real id (unless `ownAllowed` is false), the same id spelled otherwise, another organization's, or junk. */
function anySegmentArb(world: World, param: string, ownAllowed: boolean): fc.Arbitrary<string> {
  const own = world.own[param];
  const options: Array<fc.WeightedArbitrary<string>> = [{ weight: 3, arbitrary: garbageSegmentArb }];
  if (world.other[param]) options.push({ weight: 2, arbitrary: fc.constant(encode(world.other[param])) });
  if (own && ownAllowed) {
    options.push({ weight: 5, arbitrary: fc.constant(encode(own)) });
    options.push({ weight: 1, arbitrary: fc.constantFrom(`0${own}`, encode(own.toUpperCase()), `${encode(own)}%20`, `%20${encode(own)}`) });
  }
  const arb = fc.oneof(...options);
  return own && !ownAllowed ? arb.filter((s) => !namesOwn(s, own)) : arb;
}

function segmentsArb(world: World, route: Route, ownAllowed: boolean): fc.Arbitrary<Record<string, string>> {
  const record: Record<string, fc.Arbitrary<string>> = {};
  for (const param of route.params) {
    const isCredential = route.kind === 'priv' && param === 'api_key';
    record[param] = isCredential
      ? fc.oneof({ weight: 18, arbitrary: fc.constant(encode(world.own.api_key)) }, { weight: 1, arbitrary: fc.constant(encode(world.other.api_key)) }, { weight: 1, arbitrary: garbageSegmentArb })
      : anySegmentArb(world, param, ownAllowed);
  }
  return fc.record(record);
}

interface Body {
  text?: string;
  /** The JSON content type the parser reads (absent: the content type is drawn at random). */
  json?: boolean;
}

/**
 * Bodies of every kind: mostly the route's example as it is (a repeat can conflict with the first: a rejection after
 * the handler began) or with up to three changes, and random or broken JSON.
 */
function anyBodyArb(route: Route): fc.Arbitrary<Body> {
  const example = route.example ? fromPlain(route.example) : undefined;
  const text = serialize(example ?? { entries: [] });
  const options: Array<fc.WeightedArbitrary<Body>> = [
    { weight: example ? 2 : 12, arbitrary: fc.constant({}) },
    { weight: example ? 3 : 2, arbitrary: jsonObjectArb.map((j) => ({ text: serialize(j) })) },
    { weight: example ? 2 : 1, arbitrary: jsonArb.map((j) => ({ text: serialize(j) })) },
    { weight: example ? 2 : 1, arbitrary: invalidJsonArb(text).map((t) => ({ text: t, json: true })) },
    { weight: example ? 2 : 1, arbitrary: fc.oneof(deepJsonArb, fc.constant(`\ufeff${text}`)).map((t) => ({ text: t, json: true })) },
  ];
  if (example) {
    options.push({ weight: 16, arbitrary: fc.array(mutationArb, { maxLength: 3 }).map((ms) => ({ text: serialize(ms.reduce(mutate, example)) })) });
    options.push({ weight: 1, arbitrary: fc.constant({ text: `{"x":"${'x'.repeat(1_100_000)}"}`, json: true }) });
  }
  return fc.oneof(...options);
}

interface Parts {
  method: string;
  path: string;
  query: string;
  auth: string | undefined;
  requestId: string | undefined;
  contentType: string | undefined;
  contentEncoding?: string;
  extra: Record<string, string>;
  body: Body;
}

function toRequest(p: Parts): RawRequest {
  const headers: Record<string, string> = { ...p.extra };
  if (p.auth !== undefined) headers.authorization = p.auth;
  if (p.requestId !== undefined) headers['x-request-id'] = p.requestId;
  if (p.body.text !== undefined) {
    const contentType = p.body.json ? 'application/json' : p.contentType;
    if (contentType !== undefined) headers['content-type'] = contentType;
    if (p.contentEncoding !== undefined) headers['content-encoding'] = p.contentEncoding;
  }
  return printable({ method: p.method, path: `${p.path}${p.query}`, headers, body: p.body.text });
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}...(${text.length} chars)` : text);

/** fast-check prints a counterexample through this: long values clipped (the seed and path reproduce it whole). */
function printable(req: RawRequest): RawRequest {
  const shown = () =>
    JSON.stringify({
      method: req.method,
      path: clip(req.path, 400),
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, clip(v, 200)])),
      body: req.body === undefined ? undefined : clip(req.body, 600),
    });
  return Object.defineProperty(req, fc.toStringMethod, { value: shown, enumerable: false });
}

const OTHER_METHODS = ['PATCH', 'HEAD', 'OPTIONS', 'GET', 'POST', 'PUT', 'DELETE'];

/**
 * Anything at one route: its method (sometimes another), any ids, query, headers and body. A DELETE never names the
 * credentials' own objects, so the fixture stays for the next requests (the rejected-writes property covers those).
 */
export function anyRequestArb(world: World, route: Route, otherMethods = OTHER_METHODS): fc.Arbitrary<RawRequest> {
  return fc
    .oneof({ weight: 9, arbitrary: fc.constant(route.method as string) }, { weight: 1, arbitrary: fc.constantFrom(...otherMethods) })
    .chain((method) =>
      fc.record({
        method: fc.constant(method),
        path: segmentsArb(world, route, method !== 'DELETE').map((s) => fill(route, s)),
        query: queryArb(route.query),
        auth: anyAuthArb(route.kind, world.creds),
        requestId: requestIdArb,
        contentType: contentTypeArb,
        contentEncoding: contentEncodingArb,
        extra: extraHeadersArb,
        body: anyBodyArb(route),
      }),
    )
    .map(toRequest)
    .filter((req) => headSize(req) < MAX_HEAD);
}

/** Paths the app does not serve: a served path with a segment more, another version, or junk. */
export function unknownPathArb(world: World): fc.Arbitrary<RawRequest> {
  const served = fc.constantFrom(...world.routes).map((r) => fill(r, Object.fromEntries(r.params.map((p) => [p, encode(world.own[p] ?? '1')]))));
  const path = fc.oneof(
    fc.tuple(served, garbageSegmentArb).map(([p, s]) => `${p}/${s}`),
    served.map((p) => p.replace(/^\/(priv|admin)\/v\d/, '/$1/v9')),
    fc.array(garbageSegmentArb, { minLength: 1, maxLength: 4 }).map((s) => `/${s.join('/')}`),
    fc.constantFrom('/', '//', '/priv', '/priv/v1/apps', '/priv/v1/apps//users', '/admin', '/admin/v1', '/health', '/metrics/', '/%zz', '/..', '/priv/v1/apps/%2e%2e/users'),
  );
  return fc
    .record({
      method: fc.constantFrom(...OTHER_METHODS),
      path: path.filter((p) => !/^\/(docs|admin\/queues)/.test(p)),
      query: queryArb({}),
      auth: anyAuthArb('priv', world.creds),
      requestId: requestIdArb,
      contentType: contentTypeArb,
      extra: extraHeadersArb,
      body: fc.oneof(fc.constant<Body>({}), jsonObjectArb.map((j): Body => ({ text: serialize(j) }))),
    })
    .map(toRequest)
    .filter((req) => headSize(req) < MAX_HEAD);
}

/**
 * A write the app must reject, by construction: wrong credentials, a body that is not JSON, an id that names nothing
 * the credentials can reach, or a body with an unknown member (never silently dropped). Everything else about it is
 * as valid as the fixture allows, so the check that rejects it is the one under test.
 */
export function rejectedWriteArb(world: World, route: Route): fc.Arbitrary<{ request: RawRequest; why: string }> {
  const example = route.example ? fromPlain(route.example) : undefined;
  const validBody: fc.Arbitrary<Body> = example ? fc.constant({ text: serialize(example), json: true }) : fc.constant({});
  const targets = route.params.filter((p) => !(route.kind === 'priv' && p === 'api_key'));
  const valid = Object.fromEntries(route.params.map((p) => [p, encode(world.own[p])]));
  const base = {
    method: fc.constant(route.method as string),
    query: queryArb(route.query),
    auth: fc.constant(validAuth(route.kind, world.creds)),
    requestId: requestIdArb,
    contentType: fc.constant(undefined),
    extra: extraHeadersArb,
    path: fc.constant(fill(route, valid)),
    body: validBody,
  };
  const ways: Array<fc.Arbitrary<Parts & { why: string }>> = [];
  const auth = route.kind === 'admin' ? invalidAdminAuthArb(world.creds) : invalidPrivAuthArb(world.creds);
  ways.push(fc.record({ ...base, auth, why: fc.constant('credentials') }));
  ways.push(
    fc.record({
      ...base,
      body: invalidJsonArb(serialize(example ?? { entries: [['a', { raw: '1' }]] })).map((text) => ({ text, json: true })),
      why: fc.constant('not JSON'),
    }),
  );
  if (targets.length) {
    const path = fc
      .tuple(fc.constantFrom(...targets), fc.record(Object.fromEntries(targets.map((p) => [p, invalidSegmentArb(world, route, p)]))))
      .map(([param, bad]) => fill(route, { ...valid, [param]: bad[param] }));
    ways.push(fc.record({ ...base, path, why: fc.constant('unknown id') }));
  }
  if (example && 'entries' in example) {
    const members = new Set(route.bodyMembers);
    const unknownKey = keyArb.filter((k) => !members.has(k));
    const withUnknown = fc
      .tuple(unknownKey, jsonArb, fc.nat())
      .map(([key, value, at]): Body => {
        const entries = [...example.entries];
        entries.splice(at % (entries.length + 1), 0, [key, value]);
        return { text: serialize({ entries }), json: true };
      });
    const noKnown = jsonObjectArb.map((j): Body => ({ text: serialize({ entries: 'entries' in j ? j.entries.filter(([k]) => !members.has(k)) : [] }), json: true }));
    ways.push(fc.record({ ...base, body: fc.oneof(withUnknown, noKnown), why: fc.constant('unknown member') }));
  }
  return fc
    .oneof(...ways)
    .map((p) => ({ request: toRequest(p), why: p.why }))
    .filter(({ request }) => headSize(request) < MAX_HEAD);
}
