import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { behaviorBody, createBehaviors } from '../factories/behavior.factory.js';
import { createCampaign } from '../factories/campaign.factory.js';
import { createCustomer } from '../factories/customer.factory.js';
import { api, createTenant, TestTenant } from '../factories/tenant.factory.js';
import { createTestApp } from '../support/app.js';
import { expectError } from '../support/errors.js';
import { TEST_ADMIN_TOKEN } from '../support/test-env.js';

/** Text that SQL, JSON paths, format strings or templates could misread: each must be stored and answered as sent. */
const STORABLE = [
  "' OR 1=1 --",
  '" OR ""="',
  '"; DROP TABLE customers; --',
  "Robert'); DROP TABLE events; --",
  "' UNION SELECT secret_hash FROM api_keys --",
  '1; SELECT pg_sleep(5); --',
  '\\',
  "\\'; --",
  '$1 $$ $body$ :name ?',
  '%s %n %x %%',
  '{"$gt": ""}',
  '<script>alert(1)</script>',
  '${7*7} {{7*7}}',
  'tab\there\r\nnew line',
  'é ñ 中文 🙂 \u202e',
];
const CASES = STORABLE.map((text, i) => [i, text] as const);

/** Text PostgreSQL cannot store (NUL) or UTF-8 cannot carry (half a surrogate pair): refused, never a 500. */
const UNSTORABLE: Array<[string, string]> = [
  ['NUL alone', '\u0000'],
  ['NUL inside text', "a\u0000' OR 1=1 --"],
  ['a lone high surrogate', '\ud800'],
  ['a lone low surrogate', 'x\udc00y'],
];

const DAY = 86_400_000;
const window = () => ({ starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() });

describe('injection strings in every string field of the main write bodies', () => {
  let app: INestApplication;
  let db: DataSource;

  const tables = async () =>
    ((await db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)) as Array<{ table_name: string }>).map(
      (row) => row.table_name,
    );

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
  });
  afterAll(() => app.close());

  describe('customers', () => {
    let tenant: TestTenant;
    beforeAll(async () => {
      tenant = await createTenant(app);
    });

    it.each(CASES)('stores #%i %j as external_id, tag, attribute name and value, and finds it by that external_id', async (_i, text) => {
      const created = await api(app, tenant)
        .post('/users')
        .send({ user: { external_id: text, tags: [text], attributes: { [text]: text, note: text } } });
      expect(created.status).toBe(201);
      expect(created.body.user).toEqual(expect.objectContaining({ external_id: text, tags: [text], attributes: { [text]: text, note: text } }));
      expect((await api(app, tenant).get(`/users/${created.body.user.id}`).expect(200)).body.user).toEqual(created.body.user);
      expect((await api(app, tenant).get(`/external/users/${encodeURIComponent(text)}`).expect(200)).body.user).toEqual(created.body.user);
    });

    it.each(UNSTORABLE)('refuses %s with 400 validation naming the field, and stores nothing', async (_label, text) => {
      const before = await db.query('SELECT count(*)::int AS n FROM customers WHERE organization_id = $1', [tenant.organizationId]);
      for (const user of [{ external_id: text }, { external_id: 'ok', tags: [text] }, { external_id: 'ok', attributes: { [text]: 1 } }, { external_id: 'ok', attributes: { a: text } }]) {
        const res = await api(app, tenant).post('/users').send({ user });
        expect(expectError(res, 400, 'validation')).toEqual([expect.stringMatching(/^user\.(external_id|tags\[0\]|attributes\..+)$/s)]);
      }
      expect(await db.query('SELECT count(*)::int AS n FROM customers WHERE organization_id = $1', [tenant.organizationId])).toEqual(before);
    });

    it('answers 404 not_found, not 500, to a NUL in an external_id in the path (it names no customer)', async () => {
      expectError(await api(app, tenant).get('/external/users/a%00b'), 404, 'not_found');
      expectError(await api(app, tenant).put('/external/users/a%00b').send({ user: { tags: ['x'] } }), 404, 'not_found');
    });
  });

  describe('campaigns', () => {
    let tenant: TestTenant;
    beforeAll(async () => {
      tenant = await createTenant(app);
    });

    it.each(CASES)('stores #%i %j as name and targeting value; as a permalink it is 400 in a body and 404 in a path', async (i, text) => {
      const created = await api(app, tenant)
        .post('/management/campaigns')
        .send({ campaign: { name: text, permalink: `injection-${i}`, ...window(), targeting: [{ field: 'user.attributes.plan', op: 'eq', value: text }] } });
      expect(created.status).toBe(201);
      expect(created.body.campaign).toEqual(expect.objectContaining({ name: text, targeting: [{ field: 'user.attributes.plan', op: 'eq', value: text }] }));
      expect((await api(app, tenant).get(`/management/campaigns/${created.body.campaign.id}`).expect(200)).body.campaign).toEqual(created.body.campaign);

      const asPermalink = await api(app, tenant).post('/management/campaigns').send({ campaign: { name: `Permalink ${i}`, permalink: text, ...window() } });
      expect(expectError(asPermalink, 400, 'validation')).toEqual(['campaign.permalink']);
      expectError(await api(app, tenant).get(`/management/external/campaigns/${encodeURIComponent(text)}`), 404, 'not_found');
    });

    it.each(UNSTORABLE)('refuses %s in the name or a targeting value with 400 validation', async (_label, text) => {
      const name = await api(app, tenant).post('/management/campaigns').send({ campaign: { name: text, ...window() } });
      expect(expectError(name, 400, 'validation')).toEqual(['campaign.name']);
      const targeting = await api(app, tenant)
        .post('/management/campaigns')
        .send({ campaign: { name: 'Targeted', ...window(), targeting: [{ field: 'user.tags', op: 'contains', value: text }] } });
      expect(expectError(targeting, 400, 'validation')).toEqual(['campaign.targeting[0].value']);
    });
  });

  describe('behaviors', () => {
    let tenant: TestTenant;
    let campaignId: number;
    beforeAll(async () => {
      tenant = await createTenant(app);
      campaignId = (await createCampaign(app, tenant)).id;
    });

    it.each(CASES)('stores #%i %j as name, tags, goal name, event name, criteria value and goal data', async (_i, text) => {
      const body = behaviorBody({ name: text, tags: text, event: text, criteria: [{ field: 'context.k', op: 'eq', value: text }], goal_data: { note: text } });
      const created = await api(app, tenant).post(`/management/campaigns/${campaignId}/behaviors/_batch`).send({ behaviors: [body] });
      expect(created.status).toBe(201);
      const read = (await api(app, tenant).get(`/management/behaviors/${created.body.behaviors[0].id}`).expect(200)).body.behavior;
      expect(read).toEqual(expect.objectContaining({ name: text, tags: text }));
      expect(read.goal_groups[0].goals[0].achievement).toEqual(
        expect.objectContaining({ name: text, internal_event_name: text, criteria: [{ field: 'context.k', op: 'eq', value: text }], data: { note: text } }),
      );
    });

    it.each(UNSTORABLE)('refuses %s in a goal event name with 400 validation', async (_label, text) => {
      const res = await api(app, tenant)
        .post(`/management/campaigns/${campaignId}/behaviors/_batch`)
        .send({ behaviors: [behaviorBody({ name: 'Unstorable', event: text })] });
      expect(expectError(res, 400, 'validation')).toEqual([expect.stringMatching(/^behaviors\[0\]\.goal_groups\[0\]\.goals\[0\]\.achievement\.(name|internal_event_name)$/)]);
    });
  });

  describe('V1 events: event names, attributes, context and transaction_id', () => {
    let tenant: TestTenant;
    let userId: string;
    beforeAll(async () => {
      tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      // Behavior b<i> listens to the event named STORABLE[i], for a context value equal to it: only that one may move.
      await createBehaviors(
        app,
        tenant,
        campaign.id,
        STORABLE.map((text, i) => ({ name: `b${i}`, event: text, criteria: [{ field: 'context.k', op: 'eq', value: text }] })),
      );
      userId = (await createCustomer(app, tenant)).id;
    });

    it.each(CASES)('stores #%i %j as sent, and it completes exactly the behavior listening to that name and value', async (i, text) => {
      const res = await api(app, tenant)
        .post(`/users/${userId}/events`)
        .send({ events: { [text]: { note: text, context: { k: text, [text]: text } } }, transaction_id: text });
      expect(res.status).toBe(200);
      const achieved = Object.fromEntries(Object.entries(res.body.behaviors as Record<string, { deltas: { achieved: number } }>).map(([name, b]) => [name, b.deltas.achieved]));
      expect(achieved).toEqual(Object.fromEntries(STORABLE.map((_t, j) => [`b${j}`, j === i ? 1 : 0])));

      const stored = await db.query('SELECT name, attributes, context, transaction_id FROM events WHERE organization_id = $1 AND transaction_id = $2', [
        tenant.organizationId,
        text,
      ]);
      expect(stored).toEqual([{ name: text, attributes: { note: text }, context: { k: text, [text]: text }, transaction_id: text }]);

      const again = await api(app, tenant).post(`/users/${userId}/events`).send({ events: { visit: 1 }, transaction_id: text });
      expectError(again, 409, 'duplicate_transaction');
      expect(again.body.errors.message).toBe(`transaction_id ${text} has already been processed`);
    });

    it.each(UNSTORABLE)('refuses %s as an event name, a context value or a transaction_id with 400 validation', async (_label, text) => {
      for (const body of [{ events: { [text]: 1 } }, { events: { visit: { context: { k: text } } } }, { events: { visit: 1 }, transaction_id: text }]) {
        expectError(await api(app, tenant).post(`/users/${userId}/events`).send(body), 400, 'validation');
      }
    });
  });

  describe('V2 events', () => {
    let tenant: TestTenant;
    const v2 = (body: unknown) =>
      request(app.getHttpServer())
        .post(`/priv/v2/apps/${tenant.apiKey}/events`)
        .auth(tenant.apiKey, tenant.apiSecret)
        .send(body as object);

    beforeAll(async () => {
      tenant = await createTenant(app);
    });

    it.each(CASES)('stores #%i %j as name, transaction_id and context, for the customer whose external_id it is', async (_i, text) => {
      const customer = await createCustomer(app, tenant, { external_id: text });
      const res = await v2({ events: [{ name: text, external_id: text, transaction_id: text, context: { k: text, [text]: text } }] });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { status: 'ok' } });
      const stored = await db.query('SELECT customer_id, name, context, transaction_id FROM events WHERE organization_id = $1 AND source = $2 AND transaction_id = $3', [
        tenant.organizationId,
        'v2',
        text,
      ]);
      expect(stored).toEqual([{ customer_id: customer.id, name: text, context: { k: text, [text]: text }, transaction_id: text }]);
    });

    it.each(UNSTORABLE)('refuses %s anywhere in an event with 400 missing_data naming the event, storing nothing', async (_label, text) => {
      const count = async () => (await db.query('SELECT id FROM events WHERE organization_id = $1', [tenant.organizationId])).length;
      const before = await count();
      for (const event of [{ name: text }, { name: 'visit', transaction_id: text }, { name: 'visit', context: { [text]: 'x' } }]) {
        const res = await v2({ events: [{ name: 'visit', external_id: 'someone' }, { external_id: 'someone', ...event }] });
        expect(expectError(res, 400, 'missing_data')).toEqual([expect.stringMatching(/^events\[1\]\./)]);
      }
      expect(await count()).toBe(before);
    });
  });

  describe('webhook urls', () => {
    let tenant: TestTenant;
    beforeAll(async () => {
      tenant = await createTenant(app);
    });

    it.each(CASES)('stores #%i %j in a url as sent, and lists it so', async (_i, text) => {
      const url = `http://127.0.0.1:9/hook?q=${text}`;
      const created = await api(app, tenant).post('/management/webhooks').send({ webhook: { url, event_types: ['points.credited'] } });
      expect(created.status).toBe(201);
      expect(created.body.webhook.url).toBe(url);
      const list = await api(app, tenant).get('/management/webhooks').expect(200);
      expect(list.body.webhooks.filter((w: { url: string }) => w.url === url)).toEqual([expect.objectContaining({ id: created.body.webhook.id })]);
    });

    it.each(UNSTORABLE)('refuses %s in a url with 400 validation', async (_label, text) => {
      const res = await api(app, tenant).post('/management/webhooks').send({ webhook: { url: `http://127.0.0.1:9/hook?q=${text}`, event_types: ['points.credited'] } });
      expect(expectError(res, 400, 'validation')).toEqual(['webhook.url']);
    });
  });

  describe('JSON tricks', () => {
    let tenant: TestTenant;
    let campaignId: number;
    beforeAll(async () => {
      tenant = await createTenant(app);
      campaignId = (await createCampaign(app, tenant)).id;
    });
    // The app runs in this process, on this realm's Object.prototype (test/support/app.ts): a polluted prototype would
    // show here, after the request that polluted it. Every key the bodies below try to put there, and any other.
    const OWN_KEYS = Object.getOwnPropertyNames(Object.prototype).sort();
    const SENT_KEYS = ['polluted', 'status', 'max_times_achievable', 'multi_org_enabled'];
    function expectObjectPrototypeClean(): void {
      expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(OWN_KEYS);
      const fresh = {} as Record<string, unknown>;
      expect(Object.fromEntries(SENT_KEYS.map((key) => [key, fresh[key]]))).toEqual(Object.fromEntries(SENT_KEYS.map((key) => [key, undefined])));
    }
    afterEach(expectObjectPrototypeClean);

    const goals = '"goal_groups":[{"goals":[{"achievement":{"name":"visit"}}]}]';
    const dates = `"starts_at":"2026-01-01T00:00:00Z","ends_at":"2027-01-01T00:00:00Z"`;
    it.each<[string, () => string, () => string, string]>([
      ['__proto__ in a customer', () => '/users', () => '{"user":{"external_id":"proto-1","__proto__":{"polluted":"yes"}}}', 'user.__proto__'],
      ['constructor.prototype in a customer', () => '/users', () => '{"user":{"external_id":"proto-2","constructor":{"prototype":{"polluted":"yes"}}}}', 'user.constructor'],
      ['__proto__ at the top level', () => '/users', () => '{"__proto__":{"polluted":"yes"},"user":{"external_id":"proto-4"}}', '__proto__'],
      ['__proto__ in a campaign', () => '/management/campaigns', () => `{"campaign":{"name":"Proto",${dates},"__proto__":{"status":"live"}}}`, 'campaign.__proto__'],
      [
        '__proto__ in behavior data',
        () => `/management/campaigns/${campaignId}/behaviors/_batch`,
        () => `{"behaviors":[{"name":"Proto","data":{"__proto__":{"max_times_achievable":1}},${goals}}]}`,
        'behaviors[0].data.__proto__',
      ],
      [
        'constructor.prototype in a webhook',
        () => '/management/webhooks',
        () => '{"webhook":{"url":"http://127.0.0.1:9/","event_types":["points.credited"],"constructor":{"prototype":{"polluted":"yes"}}}}',
        'webhook.constructor',
      ],
    ])('refuses %s with 400 argument_error naming it (an attribute the service cannot keep), storing nothing', async (_label, path, raw, field) => {
      const res = await api(app, tenant).post(path()).set('Content-Type', 'application/json').send(raw());
      expect(expectError(res, 400, 'argument_error')).toContain(field);
      const external = (JSON.parse(raw()) as { user?: { external_id?: string } }).user?.external_id;
      if (external) expectError(await api(app, tenant).get(`/external/users/${external}`), 404, 'not_found');
    });

    it.each([
      ['constructor', '{"user":{"external_id":"proto-3","attributes":{"constructor":"admin"}}}', 'user.attributes.constructor'],
      ['__proto__', '{"user":{"external_id":"proto-5","attributes":{"__proto__":{"polluted":"yes"}}}}', 'user.attributes.__proto__'],
    ])('refuses %s as a customer attribute name with 400 validation naming it (contract §18), storing nothing', async (_label, raw, field) => {
      const res = await api(app, tenant).post('/users').set('Content-Type', 'application/json').send(raw);
      expect(expectError(res, 400, 'validation')).toEqual([field]);
      const external = JSON.parse(raw).user.external_id as string;
      expectError(await api(app, tenant).get(`/external/users/${external}`), 404, 'not_found');
    });

    // Contract §18: a name the client chooses (an event's, an attribute's, a context member's) is not a prototype key.
    it.each([
      ['__proto__ as a V1 event name', '{"events":{"__proto__":1}}', 'events.__proto__'],
      ['constructor in a V1 context', '{"events":{"visit":{"context":{"constructor":"x"}}}}', 'events.visit.context.constructor'],
    ])('refuses %s with 400 validation naming it', async (_label, raw, field) => {
      const res = await api(app, tenant).post('/users/00000000-0000-4000-8000-000000000000/events').set('Content-Type', 'application/json').send(raw);
      expect(expectError(res, 400, 'validation')).toEqual([field]);
    });

    it('refuses __proto__ in a V2 context (not flat: missing_data) and in an admin bootstrap body (argument_error)', async () => {
      const v2 = await request(app.getHttpServer())
        .post(`/priv/v2/apps/${tenant.apiKey}/events`)
        .auth(tenant.apiKey, tenant.apiSecret)
        .set('Content-Type', 'application/json')
        .send('{"events":[{"name":"visit","external_id":"x","context":{"__proto__":{"polluted":"yes"}}}]}');
      expect(expectError(v2, 400, 'missing_data')).toEqual([expect.stringMatching(/^events\[0\]\.context/)]);
      const admin = await request(app.getHttpServer())
        .post('/admin/v1/organizations')
        .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
        .set('Content-Type', 'application/json')
        .send('{"organization":{"name":"Proto","__proto__":{"multi_org_enabled":true}},"application":{"name":"Web"}}');
      expect(expectError(admin, 400, 'argument_error')).toEqual(['organization.__proto__']);
    });

    it('takes the last of duplicate keys, as JSON.parse does, in a member and in a wrapper', async () => {
      const member = await api(app, tenant).post('/users').set('Content-Type', 'application/json').send('{"user":{"external_id":"dup-first","external_id":"dup-last"}}');
      expect(member.status).toBe(201);
      expect(member.body.user.external_id).toBe('dup-last');
      const wrapper = await api(app, tenant)
        .post('/users')
        .set('Content-Type', 'application/json')
        .send('{"user":{"external_id":"wrap-first","tags":["a"]},"user":{"external_id":"wrap-last"}}');
      expect(wrapper.status).toBe(201);
      expect(wrapper.body.user).toEqual(expect.objectContaining({ external_id: 'wrap-last', tags: [] }));
      for (const id of ['dup-first', 'wrap-first']) expectError(await api(app, tenant).get(`/external/users/${id}`), 404, 'not_found');
    });

    it('ignores __proto__ and constructor as query parameters: the list as without them, Object.prototype untouched', async () => {
      const own = await createTenant(app);
      const campaign = await createCampaign(app, own);
      const res = await api(app, own).get('/management/campaigns?__proto__[polluted]=yes&constructor[prototype][polluted]=yes').expect(200);
      expectObjectPrototypeClean();
      expect(res.body).toEqual({ status: 'ok', campaigns: [expect.objectContaining({ id: campaign.id, name: campaign.name })], page: 1, limit: 10, total: 1 });
      expect((await api(app, own).get('/management/campaigns').expect(200)).body).toEqual(res.body);
    });

    it('refuses a query parameter made an object through __proto__ with 400 validation naming it, Object.prototype untouched', async () => {
      const res = await api(app, tenant).get('/management/campaigns?limit[__proto__][polluted]=yes');
      expectObjectPrototypeClean();
      expect(expectError(res, 400, 'validation')).toEqual(['limit']);
    });
  });

  describe('the database afterwards', () => {
    it('keeps every table, each readable, after every string is sent as a customer, an event name and a transaction_id', async () => {
      const before = await tables();
      const tenant = await createTenant(app);
      for (const text of STORABLE) {
        const created = await api(app, tenant).post('/users').send({ user: { external_id: text, tags: [text] } }).expect(201);
        await api(app, tenant).post(`/users/${created.body.user.id}/events`).send({ events: { [text]: 1 }, transaction_id: text }).expect(200);
      }
      expect(await tables()).toEqual(before);
      for (const table of before) await expect(db.query(`SELECT count(*) FROM "${table}"`)).resolves.toHaveLength(1);
      // Each string stored once, as sent: one customer and one event apiece.
      const stored = async (sql: string) => ((await db.query(sql, [tenant.organizationId])) as Array<{ v: string }>).map((row) => row.v).sort();
      expect(await stored('SELECT external_id AS v FROM customers WHERE organization_id = $1')).toEqual([...STORABLE].sort());
      expect(await stored('SELECT transaction_id AS v FROM events WHERE organization_id = $1')).toEqual([...STORABLE].sort());
    });
  });
});
