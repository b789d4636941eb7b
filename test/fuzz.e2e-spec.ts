/**
 * Fuzzing (issue #8): fast-check sends thousands of generated requests (bodies, headers, path segments, query strings)
 * to every route the app documents in its OpenAPI document, and checks that no answer is a 5xx, every answer that is
 * not a success is the contract's error envelope with a code from its table, every answer has x-request-id, and a
 * rejected request changes no data (a checksum of both fuzzed organizations' rows in every table, after each request).
 *
 * The seed is fixed, so a run is repeatable (about 7,500 requests, some 80 s on a 2-core machine). Override the seed,
 * or the number of requests per property, from the environment:
 *   FUZZ_SEED=12345 FUZZ_RUNS=5000 node --experimental-vm-modules node_modules/jest/bin/jest.js test/fuzz --selectProjects e2e
 * A failure prints fast-check's shrunk counterexample (the request, long values clipped) and the cause. The same
 * FUZZ_SEED and FUZZ_RUNS replay the whole run (each request may depend on the data earlier ones left). Longer fuzzing
 * than npm test's: `npm run fuzz` (FUZZ_RUNS=5000 unless set). See docs/fuzzing.md.
 */
import type { INestApplication } from '@nestjs/common';
import fc from 'fast-check';
import request from 'supertest';
import { createTestApp } from './support/app.js';
import { useOwnDatabase } from './support/database.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { deleteQueueKeys, ownQueuePrefix } from './support/worker.js';
import { validAuth } from './fuzz/auth.js';
import { checkAnswer, isRejected } from './fuzz/checks.js';
import { fitExample } from './fuzz/fit.js';
import { RawClient, RawRequest } from './fuzz/client.js';
import { anyRequestArb, rejectedWriteArb, unknownPathArb, World } from './fuzz/requests.js';
import { OpenApiDocument, Route, routesOf } from './fuzz/routes.js';
import { ChangeWatch, DataSnapshot } from './fuzz/snapshot.js';
import { buildOrg } from './fuzz/world.js';

function fromEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return Number(raw);
}

const SEED = fromEnv('FUZZ_SEED') ?? 20_260_108;
/** Requests per property (each property spreads them over its routes, at least one per route). */
const RUNS = fromEnv('FUZZ_RUNS');
const TIMEOUT = 600_000;

describe('fuzzing every route', () => {
  const prefix = ownQueuePrefix('fuzz');
  let app: INestApplication;
  let client: RawClient;
  let snapshot: DataSnapshot;
  let watch: ChangeWatch;
  let routes: Route[];
  let world: World;
  /** HTTP statuses answered, per property (tallies for the assertions that the fuzzing reached the handlers). */
  const statuses = new Map<string, Map<number, number>>();

  beforeAll(async () => {
    // A database of its own (copied from the run's template): the check after every request reads every row of the
    // fuzzed organizations in every table, and the event log and the tables taken whole (event_transactions) hold
    // only what the fuzzing wrote, not what the run's other specs have.
    await useOwnDatabase('fuzz');
    // A queue of its own that no worker reads: jobs the accepted requests queue (events, simulations) never change
    // rows behind the change watch's back.
    app = await createTestApp({ queuePrefix: prefix, rateLimitPerMinute: 10_000_000, authFailuresPerMinute: 10_000_000 });
    await app.listen(0, '127.0.0.1');
    const own = await buildOrg(app, 'Fuzzed');
    const other = await buildOrg(app, 'Other');
    const doc = await request(app.getHttpServer()).get('/docs-json').expect(200);
    routes = routesOf(doc.body as OpenApiDocument).map((r) => ({ ...r, example: r.example && (fitExample(r.example, own.ids) as Record<string, unknown>) }));
    world = {
      routes,
      own: own.ids,
      other: other.ids,
      creds: { apiKey: own.tenant.apiKey, apiSecret: own.tenant.apiSecret, otherKey: other.tenant.apiKey, otherSecret: other.tenant.apiSecret, adminToken: TEST_ADMIN_TOKEN },
    };
    client = new RawClient(app);
    snapshot = new DataSnapshot([own.tenant.organizationId, other.tenant.organizationId]);
    await snapshot.open();
    watch = new ChangeWatch(snapshot);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await snapshot?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  /** Sends one request, checks the answer, and checks that no data changed when it was rejected (or `readOnly`). */
  async function exchange(property: string, req: RawRequest, readOnly = false) {
    const res = await client.send(req);
    const seen = statuses.get(property) ?? new Map<number, number>();
    seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
    statuses.set(property, seen);
    checkAnswer(req, res);
    await watch.after(readOnly || isRejected(res), `${req.method} ${req.path.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`);
    return res;
  }

  /** Runs `property` once per route with `total` runs spread over them; a route-specific seed keeps each repeatable. */
  async function perRoute<T>(list: Route[], total: number, property: (route: Route) => fc.IAsyncProperty<[T]>) {
    const each = Math.max(1, Math.ceil((RUNS ?? total) / list.length));
    await watch.start();
    for (const [i, route] of list.entries()) await fc.assert(property(route), { seed: SEED + i, numRuns: each });
  }

  const count = (property: string, match: (status: number) => boolean) =>
    [...(statuses.get(property) ?? new Map<number, number>())].filter(([s]) => match(s)).reduce((n, [, c]) => n + c, 0);

  it('takes the routes from the app itself: every event, management, admin and public route', () => {
    const names = routes.map((r) => `${r.method} ${r.template}`);
    expect(names.length).toBeGreaterThanOrEqual(70);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /priv/v1/apps/{api_key}/users/{user_id}/events',
        'POST /priv/v1/apps/{api_key}/external/users/{external_id}/external/campaigns/{permalink}/events',
        'GET /priv/v1/apps/{api_key}/users/{user_id}/events',
        'POST /priv/v2/apps/{api_key}/events',
        'POST /priv/v2/apps/{api_key}/users/{user_id}/campaigns/{ad_campaign_id}/perform',
        'POST /priv/v1/apps/{api_key}/management/campaigns',
        'PUT /priv/v1/apps/{api_key}/management/behaviors/{behavior_id}',
        'DELETE /priv/v1/apps/{api_key}/management/creatives/{creative_id}',
        'POST /admin/v1/organizations',
        'DELETE /admin/v1/api_keys/{api_key}',
        'GET /health/ready',
      ]),
    );
    // Every path parameter has a real value in the fixture, so ids can be valid as well as junk.
    for (const param of new Set(routes.flatMap((r) => r.params))) expect({ param, value: world.own[param] }).toEqual({ param, value: expect.any(String) });
  });

  it('notices a change of data (the check the properties rely on can fail)', async () => {
    const json = { authorization: validAuth('priv', world.creds)!, 'content-type': 'application/json' };
    await watch.start();
    const res = await client.send({ method: 'POST', path: `/priv/v1/apps/${world.own.api_key}/management/offers`, headers: json, body: '{"offer":{"name":"Tea"}}' });
    expect(res.status).toBe(201);
    await expect(watch.after(true, 'an accepted write taken for a rejected one')).rejects.toThrow(/a rejected request changed data \(.*offers rows: \d+/);
    await expect(watch.after(true, 'nothing since')).resolves.toBeUndefined();
  });

  // Each of these answered 500 or was accepted with a member silently dropped, until fixed (see docs/fuzzing.md).
  it('answers what the fuzzer once broke with a 4xx in the envelope, changing nothing', async () => {
    const { api_key: key, user_id: user } = world.own;
    const json = { authorization: validAuth('priv', world.creds)!, 'content-type': 'application/json' };
    const admin = { authorization: validAuth('admin', world.creds)!, 'content-type': 'application/json' };
    const deep = `{"organization":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const cases: Array<[RawRequest, number, string]> = [
      [{ method: 'POST', path: `/priv/v1/apps/${key}/users/${user}/events`, headers: json, body: '{"events":{"a":1},"(":1}' }, 400, 'argument_error'],
      [{ method: 'GET', path: `/priv/v1/apps/${key}/users/${user}/timeline?page[toString]=1`, headers: json }, 400, 'validation'],
      [{ method: 'POST', path: '/admin/v1/organizations', headers: admin, body: deep }, 400, 'validation'],
      [{ method: 'POST', path: `/priv/v1/apps/${key}/users/${user}/events`, headers: json, body: '{"events":{"a":1},"prototype":1}' }, 400, 'argument_error'],
      [{ method: 'POST', path: `/priv/v1/apps/${key}/management/tiers`, headers: json, body: '{"tier":{"name":"Silver","min_points":7,"constructor":1}}' }, 400, 'argument_error'],
      [{ method: 'DELETE', path: `/priv/v1/apps/${key}/management/external/campaigns/%00`, headers: json }, 404, 'not_found'],
      [{ method: 'POST', path: `/priv/v1/apps/${key}/users/${user}/external/campaigns/a%00/events`, headers: json, body: '{"events":{"a":1}}' }, 404, 'No_active_campaign_found'],
      [{ method: 'PUT', path: `/priv/v1/apps/${key}/management/tiers/${world.own.tier_id}`, headers: json, body: '{"tier":{"name":"\\udfff x"}}' }, 400, 'validation'],
      [{ method: 'POST', path: `/priv/v2/apps/${key}/events`, headers: json, body: `{"events":{"name":"a\\u0000","user_id":"${user}"}}` }, 400, 'missing_data'],
      [{ method: 'POST', path: `/priv/v1/apps/${key}/management/campaigns`, headers: json, body: '{"campaign":[]}' }, 400, 'validation'],
      [{ method: 'PUT', path: `/priv/v1/apps/${key}/users/${user}`, headers: json, body: '{"user":[{"tags":["x"]}]}' }, 400, 'validation'],
    ];
    await watch.start();
    for (const [req, status, code] of cases) {
      const res = await exchange('regressions', req);
      expect({ path: req.path.slice(0, 80), status: res.status, code: (res.json as { errors?: { code?: string } }).errors?.code }).toEqual({ path: req.path.slice(0, 80), status, code });
    }
  });

  it(
    'reads: any ids, query strings and headers on every GET route answer without a 5xx, in the envelope, and change nothing',
    async () => {
      await perRoute(
        routes.filter((r) => r.method === 'GET'),
        300,
        (route) => fc.asyncProperty(anyRequestArb(world, route, ['HEAD', 'GET']), async (req) => void (await exchange('reads', req, true))),
      );
      expect(count('reads', (s) => s === 200)).toBeGreaterThan(0);
      expect(count('reads', (s) => s === 404)).toBeGreaterThan(0);
    },
    TIMEOUT,
  );

  it(
    'writes that must be rejected (bad credentials, bad JSON, ids of nothing, unknown members) are, in the envelope, and change nothing',
    async () => {
      await perRoute(
        routes.filter((r) => r.method !== 'GET'),
        400,
        (route) =>
          fc.asyncProperty(rejectedWriteArb(world, route), async ({ request: req, why }) => {
            const res = await exchange('rejected writes', req);
            if (res.status < 400 || res.status >= 500) throw new Error(`${why}: must be rejected with a 4xx, got ${res.status} ${res.text.slice(0, 300)}`);
          }),
      );
      expect(count('rejected writes', (s) => s >= 400 && s < 500)).toBe(count('rejected writes', () => true));
    },
    TIMEOUT,
  );

  it(
    'anything at any route (and at paths that are not routes) answers without a 5xx, in the envelope, and a rejected request changes nothing',
    async () => {
      await perRoute(routes, 700, (route) => fc.asyncProperty(anyRequestArb(world, route), async (req) => void (await exchange('anything', req))));
      await fc.assert(
        fc.asyncProperty(unknownPathArb(world), async (req) => void (await exchange('unknown paths', req))),
        { seed: SEED, numRuns: RUNS ?? 100 },
      );
      expect(count('anything', (s) => s >= 200 && s < 300)).toBeGreaterThan(0);
      expect(count('anything', (s) => s === 400)).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});
