import type { INestApplication } from '@nestjs/common';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { createBehavior } from './factories/behavior.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';

/**
 * Contract §18: ids in paths and integers in queries are canonical decimal. Every other spelling of an existing id
 * answers 404 like an id that does not exist (never the object its number names); a query integer spelled otherwise
 * answers 400 validation naming the parameter.
 */

/** Spellings of `id` whose number is `id` but which are not canonical decimal, as they appear in a path. */
const PATH_FORMS: Array<[string, (id: number) => string]> = [
  ['a leading zero', (id) => `0${id}`],
  ['a decimal point', (id) => `${id}.0`],
  ['a plus sign', (id) => `+${id}`],
  ['an exponent', (id) => `${id}e0`],
  ['hexadecimal', (id) => `0x${id.toString(16)}`],
  ['a leading space', (id) => `%20${id}`],
  ['a trailing space', (id) => `${id}%20`],
];

/** Spellings of 1 (and the empty value) that are not canonical decimal, as they appear in a query string. */
const QUERY_FORMS = ['01', '1.0', '0x1', '%2B1', '1e0', ''];

describe('canonical decimal ids and query integers (contract §18)', () => {
  let app: INestApplication;
  let tenant: TestTenant;
  let campaign: { id: number };
  let behaviorId: number;
  let tierId: number;
  let divisionId: number;
  let customer: { id: string };

  beforeAll(async () => {
    app = await createTestApp();
    tenant = await createTenant(app, { multi_org_enabled: true });
    campaign = await createCampaign(app, tenant);
    behaviorId = (await createBehavior(app, tenant, campaign.id, { name: 'Canonical visits', event: 'canonical_visit', event_count: 5 })).id;
    tierId = (await api(app, tenant).post('/management/tiers').send({ tier: { name: 'Canonical', min_points: 500 } }).expect(201)).body.tier.id;
    const division = await api(app, tenant).post('/management/divisions').send({ division: { name: 'Canonical', parent_id: tenant.rootDivisionId } });
    divisionId = division.body.division.id;
    customer = await createCustomer(app, tenant);
  });
  afterAll(() => app.close());

  const routes: Array<[string, (id: string) => string, () => number, string]> = [
    ['a campaign', (id) => `/management/campaigns/${id}`, () => campaign.id, 'campaign'],
    ['a behavior', (id) => `/management/behaviors/${id}`, () => behaviorId, 'behavior'],
    ['a tier', (id) => `/management/tiers/${id}`, () => tierId, 'tier'],
    ['a division', (id) => `/management/divisions/${id}`, () => divisionId, 'division'],
  ];

  describe.each(routes)('GET %s by id', (_label, path, id, member) => {
    it('answers the object for its canonical id', async () => {
      const res = await api(app, tenant).get(path(String(id()))).expect(200);
      expect(res.body[member].id).toBe(id());
    });

    it.each(PATH_FORMS)('answers 404 not_found for the id with %s, as for an id that does not exist', async (_form, spell) => {
      const res = await api(app, tenant).get(path(spell(id())));
      expectError(res, 404, 'not_found');
      const missing = await api(app, tenant).get(path('2000000000'));
      expect(res.body).toEqual(missing.body);
    });
  });

  describe('POST /users/:user_id/campaigns/:campaign_id/events', () => {
    const send = (id: string) => api(app, tenant).post(`/users/${customer.id}/campaigns/${id}/events`).send({ events: { canonical_visit: 1 }, read_only: true });

    it('evaluates for the canonical campaign id', async () => {
      const res = await send(String(campaign.id)).expect(200);
      expect(Object.keys(res.body.behaviors)).toEqual(['Canonical visits']);
    });

    it.each(PATH_FORMS)('answers 404 No_active_campaign_found for the id with %s', async (_form, spell) => {
      expectError(await send(spell(campaign.id)), 404, 'No_active_campaign_found');
    });
  });

  describe('page and limit of a list', () => {
    it('answers the page asked for in canonical decimal', async () => {
      const res = await api(app, tenant).get('/management/campaigns?page=1&limit=1').expect(200);
      expect(res.body).toEqual(expect.objectContaining({ status: 'ok', page: 1, limit: 1, total: 1 }));
      expect(res.body.campaigns.map((c: { id: number }) => c.id)).toEqual([campaign.id]);
    });

    describe.each(['page', 'limit'])('%s', (name) => {
      it.each(QUERY_FORMS)(`answers 400 validation naming ${name} for ${name}=%s`, async (value) => {
        expect(expectError(await api(app, tenant).get(`/management/campaigns?${name}=${value}`), 400, 'validation')).toEqual([name]);
        expect(expectError(await api(app, tenant).get(`/users/${customer.id}/timeline?${name}=${value}`), 400, 'validation')).toEqual([name]);
      });
    });
  });

  describe('division_ids of a retrieval', () => {
    const retrieve = (query: string) => api(app, tenant).get(`/users/${customer.id}/events?${query}`);

    it('restricts to the divisions named in canonical decimal', async () => {
      expect(Object.keys((await retrieve(`division_ids=${tenant.rootDivisionId}`).expect(200)).body.behaviors)).toEqual(['Canonical visits']);
      expect((await retrieve(`division_ids=${divisionId}`).expect(200)).body.behaviors).toEqual({});
    });

    it.each(PATH_FORMS.filter(([form]) => !form.includes('space')))('answers 400 validation naming division_ids for a root id with %s', async (_form, spell) => {
      const spelled = spell(tenant.rootDivisionId).replace('+', '%2B');
      expect(expectError(await retrieve(`division_ids=${spelled}`), 400, 'validation')).toEqual(['division_ids']);
      expect(expectError(await retrieve(`division_ids[]=${divisionId}&division_ids[]=${spelled}`), 400, 'validation')).toEqual(['division_ids']);
    });

    it('answers 400 validation naming division_ids for an empty value', async () => {
      expect(expectError(await retrieve('division_ids='), 400, 'validation')).toEqual(['division_ids']);
      expect(expectError(await retrieve(`division_ids=${divisionId},`), 400, 'validation')).toEqual(['division_ids']);
    });
  });
});
