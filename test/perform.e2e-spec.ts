import type { INestApplication } from '@nestjs/common';
import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createBehaviors, CreatedBehavior } from './factories/behavior.factory.js';

const DAY = 86_400_000;
const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

type Customer = { id: string; external_id: string };
type Campaign = { id: number; name: string; permalink: string; status: string; starts_at: string; ends_at: string };

let seq = 0;
const uniq = (prefix: string) => `${prefix}-${++seq}-${Date.now().toString(36)}`;

describe('perform (contract §12)', () => {
  let app: INestApplication;
  let db: DataSource;

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
  });
  afterAll(() => app.close());

  /** POST under /priv/v2/apps/:api_key with the tenant's credentials. */
  function v2(tenant: TestTenant, path: string, body: unknown = { domain: 'complete_campaign' }, query = ''): request.Test {
    return request(app.getHttpServer())
      .post(`/priv/v2/apps/${tenant.apiKey}${path}${query ? `?${query}` : ''}`)
      .auth(tenant.apiKey, tenant.apiSecret)
      .send(body as object);
  }

  const byId = (c: Customer, campaign: Campaign) => `/users/${c.id}/campaigns/${campaign.id}/perform`;

  interface World {
    tenant: TestTenant;
    campaign: Campaign;
    behaviors: CreatedBehavior[];
    offerId: number;
    creativeId: number;
    customer: Customer;
  }

  /**
   * A campaign with two behaviors: "Explorer" (two goals: 3 visits worth 5, 2 distinct stores worth 7; 50 points,
   * tags explorer|vip, a 20-point offer, a Gold tier outcome, a triggered creative) and "Reviewer" (10 points).
   */
  async function world(caps: Record<string, unknown> = { max_times_achievable: 1 }, campaignExtra: Record<string, unknown> = {}): Promise<World> {
    const tenant = await createTenant(app);
    const campaign = await createCampaign(app, tenant, campaignExtra);
    const offer = await api(app, tenant).post('/management/offers').send({ offer: { name: uniq('Coffee'), points: 20, description: 'Any size' } }).expect(201);
    await api(app, tenant).post('/management/tiers').send({ tier: { name: 'Gold', min_points: 100_000 } }).expect(201);
    const behaviors = await createBehaviors(app, tenant, campaign.id, [
      {
        name: uniq('Explorer'),
        points: 50,
        tags: 'explorer|vip',
        data: caps,
        goals: [
          { event: 'visit', event_count: 3, points: 5 },
          { event: 'store', type: 'unique', unique_attribute: 'store_id', event_count: 2, points: 7 },
        ],
        outcomes: [{ deal: { id: offer.body.offer.id } }, { tier: { name: 'Gold' } }],
      },
      { name: uniq('Reviewer'), event: 'review', points: 10, data: caps },
    ]);
    const window = { starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
    const lineItem = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: { name: 'Main', status: 'live', ...window } }).expect(201);
    const group = await api(app, tenant)
      .post(`/management/line_items/${lineItem.body.line_items[0].id}/creative_groups`)
      .send({ creative_group: { name: 'Everyone', status: 'live', ...window } })
      .expect(201);
    const applications: Array<{ id: number }> = await db.query(`SELECT id FROM applications WHERE organization_id = $1`, [tenant.organizationId]);
    const creative = await api(app, tenant)
      .post(`/management/creative_groups/${group.body.creative_groups[0].id}/creatives`)
      .send({
        creative: {
          name: 'Explorer push',
          status: 'live',
          ad_type: 'push_message',
          creative_type: 'messaging-platform-push',
          application_id: applications[0].id,
          message: 'Well done',
          url: 'https://example.com/explorer',
          payload: { screen: 'rewards' },
          issue_audience_csv: { delivery_method: 'triggered', behavior_id: behaviors[0].id },
        },
      })
      .expect(201);
    const customer = await createCustomer(app, tenant, { tags: ['vip'] });
    return { tenant, campaign, behaviors, offerId: offer.body.offer.id, creativeId: creative.body.creatives[0].id, customer };
  }

  async function user(tenant: TestTenant, c: Customer) {
    return (await api(app, tenant).get(`/users/${c.id}`).expect(200)).body.user;
  }

  async function ledger(c: Customer): Promise<Array<{ amount: number; reason: string }>> {
    return db.query(`SELECT amount, reason FROM points_ledger WHERE customer_id = $1 ORDER BY id`, [c.id]);
  }

  const BASE_KEYS = ['campaign_id', 'campaign_permalink', 'ends_at', 'name', 'qualified', 'starts_at', 'status'];

  describe('complete_campaign', () => {
    it('completes every behavior once and answers the campaign; points, offers, tags, tier and notifications are stored', async () => {
      const w = await world();
      const res = await v2(w.tenant, byId(w.customer, w.campaign));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ok',
        campaign: {
          campaign_id: w.campaign.id,
          campaign_permalink: w.campaign.permalink,
          name: w.campaign.name,
          status: 'live',
          starts_at: w.campaign.starts_at,
          ends_at: w.campaign.ends_at,
          qualified: true,
        },
      });
      expect(res.body.campaign.starts_at).toMatch(ISO_UTC_MS);

      const after = await user(w.tenant, w.customer);
      // 50 + 5 + 7 (goals) + 20 (offer) + 10 (Reviewer)
      expect(after).toMatchObject({ available_points: 92, lifetime_points: 92, tier: 'Gold' });
      expect([...after.tags].sort()).toEqual(['explorer', 'vip']);
      const rows = await ledger(w.customer);
      // The ledger's row order within one write is not significant.
      expect(rows.map((r) => `${r.reason}:${r.amount}`).sort()).toEqual(['behavior:10', 'behavior:50', 'goal:5', 'goal:7', 'offer:20']);
      expect(rows.reduce((sum, r) => sum + Number(r.amount), 0)).toBe(after.available_points);

      const offers = await db.query(`SELECT offer_id, campaign_id, behavior_id FROM customer_offers WHERE customer_id = $1`, [w.customer.id]);
      expect(offers).toEqual([{ offer_id: w.offerId, campaign_id: w.campaign.id, behavior_id: w.behaviors[0].id }]);
      // The notifications route is not on this branch yet: the stored row is read from the table.
      const notifications = await db.query(`SELECT creative_id, campaign_id, behavior_id, type, data FROM notifications WHERE customer_id = $1`, [w.customer.id]);
      expect(notifications).toEqual([
        {
          creative_id: w.creativeId,
          campaign_id: w.campaign.id,
          behavior_id: w.behaviors[0].id,
          type: 'push_message',
          data: { action_type: 'message', url: 'https://example.com/explorer', message: 'Well done', payload: { screen: 'rewards' } },
        },
      ]);

      // The customer's progress: each behavior achieved once; the timeline shows the perform event.
      const progress = await api(app, w.tenant).get(`/users/${w.customer.id}/events`).expect(200);
      expect(progress.body.behaviors[w.behaviors[0].name]).toMatchObject({ achieved: 1, current_count: 0 });
      expect(progress.body.behaviors[w.behaviors[1].name]).toMatchObject({ achieved: 1 });
      const timeline = await api(app, w.tenant).get(`/users/${w.customer.id}/timeline`).expect(200);
      expect(timeline.body.events).toEqual([expect.objectContaining({ name: 'complete_campaign', status: 'processed', points_earned: 92, source: 'perform' })]);
    });

    it('works on each of the four routes (user id or external id, campaign id or permalink)', async () => {
      const w = await world();
      const customers = await Promise.all([0, 1, 2, 3].map(() => createCustomer(app, w.tenant)));
      const ext = (c: Customer) => encodeURIComponent(c.external_id);
      const paths = [
        `/users/${customers[0].id}/campaigns/${w.campaign.id}/perform`,
        `/users/${customers[1].id}/external/campaigns/${w.campaign.permalink}/perform`,
        `/external/users/${ext(customers[2])}/campaigns/${w.campaign.id}/perform`,
        `/external/users/${ext(customers[3])}/external/campaigns/${w.campaign.permalink}/perform`,
      ];
      for (const [i, path] of paths.entries()) {
        const res = await v2(w.tenant, path);
        expect({ path, status: res.status, id: res.body.campaign?.campaign_id }).toEqual({ path, status: 200, id: w.campaign.id });
        expect((await user(w.tenant, customers[i])).available_points).toBe(92);
        // A second perform on any route answers failed_to_perform.
        expectError(await v2(w.tenant, path), 422, 'failed_to_perform');
      }
    });

    it('keeps earlier progress and credits each goal once', async () => {
      const w = await world();
      await api(app, w.tenant).post(`/users/${w.customer.id}/events`).send({ events: { visit: 2 } }).expect(200);
      await v2(w.tenant, byId(w.customer, w.campaign)).expect(200);
      expect((await user(w.tenant, w.customer)).available_points).toBe(92);
      const rows = await ledger(w.customer);
      expect(rows.reduce((sum, r) => sum + Number(r.amount), 0)).toBe(92);
    });

    it('leaves a behavior at its cap as it is; behaviors without a total cap are completed once', async () => {
      const w = await world({});
      // Reviewer completed twice through events first.
      await api(app, w.tenant).post(`/users/${w.customer.id}/events`).send({ events: { review: [{}, {}] } }).expect(200);
      const res = await v2(w.tenant, byId(w.customer, w.campaign), undefined, 'sections[]=behaviors');
      expect(res.status).toBe(200);
      expect(res.body.campaign.behaviors.map((b: { achieved: number }) => b.achieved)).toEqual([1, 3]);
      expect((await user(w.tenant, w.customer)).available_points).toBe(82 + 30);
      // The campaign is completed for the customer: a second perform fails even though the behaviors have no cap.
      expectError(await v2(w.tenant, byId(w.customer, w.campaign)), 422, 'failed_to_perform');
    });

    it('answers qualified: false for a customer the targeting does not match (who is still forced through)', async () => {
      const w = await world(undefined, { targeting: [{ field: 'user.tags', op: 'contains', value: 'gold-member' }] });
      const res = await v2(w.tenant, byId(w.customer, w.campaign));
      expect(res.status).toBe(200);
      expect(res.body.campaign.qualified).toBe(false);
      expect((await user(w.tenant, w.customer)).available_points).toBe(92);
    });
  });

  describe('sections, filters and creatives', () => {
    it('sections[]=progress', async () => {
      const w = await world();
      const res = await v2(w.tenant, byId(w.customer, w.campaign), undefined, 'sections[]=progress');
      expect(res.body.campaign.progress).toEqual({
        completed: true,
        behaviors_total: 2,
        behaviors_achieved: 2,
        points_earned: 92,
        available_points: 92,
        lifetime_points: 92,
        tier: 'Gold',
      });
      expect(Object.keys(res.body.campaign).sort()).toEqual([...BASE_KEYS, 'progress'].sort());
    });

    it('sections[]=behaviors lists every behavior with its progress and eligibility', async () => {
      const w = await world();
      const res = await v2(w.tenant, byId(w.customer, w.campaign), undefined, 'sections[]=behaviors');
      expect(res.body.campaign.behaviors).toEqual([
        expect.objectContaining({ id: w.behaviors[0].id, name: w.behaviors[0].name, eligible: false, achieved: 1, type: 'composite', total_count: 2, goals: expect.any(Object) }),
        expect.objectContaining({ id: w.behaviors[1].id, name: w.behaviors[1].name, eligible: false, achieved: 1 }),
      ]);
    });

    it('filters[] picks eligible, ineligible or all behaviors (default all)', async () => {
      // Explorer capped at 1 (ineligible after), Reviewer uncapped (still eligible).
      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      const [capped, open] = await createBehaviors(app, tenant, campaign.id, [
        { name: uniq('Capped'), event: 'a', data: { max_times_achievable: 1 } },
        { name: uniq('Open'), event: 'b' },
      ]);
      const names = (res: Response) => res.body.campaign.behaviors.map((b: { name: string }) => b.name);
      const perform = async (query: string) => {
        const c = await createCustomer(app, tenant);
        const res = await v2(tenant, byId(c, campaign), undefined, `sections[]=behaviors&${query}`);
        expect(res.status).toBe(200);
        return names(res);
      };
      expect(await perform('filters[]=eligible')).toEqual([open.name]);
      expect(await perform('filters[]=ineligible')).toEqual([capped.name]);
      expect(await perform('filters[]=all')).toEqual([capped.name, open.name]);
      expect(await perform('filters[]=eligible&filters[]=ineligible')).toEqual([capped.name, open.name]);
      expect(await perform('')).toEqual([capped.name, open.name]);
    });

    it('sections[]=offers lists the offers the campaign issued to the customer', async () => {
      const w = await world();
      const res = await v2(w.tenant, byId(w.customer, w.campaign), undefined, 'sections[]=offers');
      expect(res.body.campaign.offers).toEqual([
        { id: expect.any(Number), offer_id: w.offerId, name: expect.stringMatching(/^Coffee/), description: 'Any size', points: 20, behavior_id: w.behaviors[0].id, issued_at: expect.stringMatching(ISO_UTC_MS) },
      ]);
    });

    it('sections[]=redemptions is an empty list; several sections at once', async () => {
      const w = await world();
      const res = await v2(w.tenant, byId(w.customer, w.campaign), undefined, 'sections[]=redemptions&sections[]=progress&sections[]=offers&sections[]=behaviors');
      expect(res.body.campaign.redemptions).toEqual([]);
      expect(Object.keys(res.body.campaign).sort()).toEqual([...BASE_KEYS, 'behaviors', 'offers', 'progress', 'redemptions'].sort());
    });

    it("creatives[]=promotion|tile adds the campaign's active creatives; a blank value removes them", async () => {
      const w = await world();
      const others = await Promise.all([0, 1, 2].map(() => createCustomer(app, w.tenant)));
      const expected = [
        {
          id: w.creativeId,
          name: 'Explorer push',
          status: 'live',
          ad_type: 'push_message',
          creative_type: 'messaging-platform-push',
          creative_group_id: expect.any(Number),
          delivery_method: 'triggered',
          message: 'Well done',
          url: 'https://example.com/explorer',
          payload: { screen: 'rewards' },
        },
      ];
      const promo = await v2(w.tenant, byId(w.customer, w.campaign), undefined, 'creatives[]=promotion');
      expect(promo.body.campaign.creatives).toEqual({ promotion: expected });
      const both = await v2(w.tenant, byId(others[0], w.campaign), undefined, 'creatives[]=promotion&creatives[]=tile');
      expect(both.body.campaign.creatives).toEqual({ promotion: expected, tile: expected });
      const blank = await v2(w.tenant, byId(others[1], w.campaign), undefined, 'creatives[]=');
      expect(blank.status).toBe(200);
      expect(blank.body.campaign).not.toHaveProperty('creatives');
      // A paused creative is not active.
      await api(app, w.tenant).put(`/management/creatives/${w.creativeId}`).send({ creative: { status: 'paused' } }).expect(200);
      const paused = await v2(w.tenant, byId(others[2], w.campaign), undefined, 'creatives[]=tile');
      expect(paused.body.campaign.creatives).toEqual({ tile: [] });
    });

    it('an unknown section, filter or placement is 400 validation, and nothing is performed', async () => {
      const w = await world();
      for (const query of ['sections[]=everything', 'filters[]=some', 'creatives[]=banner']) {
        expectError(await v2(w.tenant, byId(w.customer, w.campaign), undefined, query), 400, 'validation');
      }
      expect((await user(w.tenant, w.customer)).available_points).toBe(0);
    });
  });

  describe('errors', () => {
    let w: World;
    beforeAll(async () => {
      w = await world();
    });

    it('missing domain → 400 missing_data; unknown attributes → 400 argument_error', async () => {
      expect(expectError(await v2(w.tenant, byId(w.customer, w.campaign), {}), 400, 'missing_data')).toEqual(['domain']);
      expectError(await v2(w.tenant, byId(w.customer, w.campaign), { domain: '' }), 400, 'missing_data');
      expectError(await v2(w.tenant, byId(w.customer, w.campaign), { domain: 'complete_campaign', extra: 1 }), 400, 'argument_error');
      expectError(await v2(w.tenant, byId(w.customer, w.campaign), { domain: 5 }), 400, 'validation');
    });

    it('unknown domain → 400 not_available', async () => {
      expectError(await v2(w.tenant, byId(w.customer, w.campaign), { domain: 'skip_campaign' }), 400, 'not_available');
      expect((await user(w.tenant, w.customer)).available_points).toBe(0);
    });

    it('unknown customer → 404 not_found, by id and by external id', async () => {
      expectError(await v2(w.tenant, `/users/${UNKNOWN_UUID}/campaigns/${w.campaign.id}/perform`), 404, 'not_found');
      expectError(await v2(w.tenant, `/users/not-a-uuid/campaigns/${w.campaign.id}/perform`), 404, 'not_found');
      expectError(await v2(w.tenant, `/external/users/nobody-${Date.now()}/campaigns/${w.campaign.id}/perform`), 404, 'not_found');
    });

    it('unknown campaign → 404 not_found, by id and by permalink', async () => {
      expectError(await v2(w.tenant, `/users/${w.customer.id}/campaigns/2147483000/perform`), 404, 'not_found');
      expectError(await v2(w.tenant, `/users/${w.customer.id}/campaigns/abc/perform`), 404, 'not_found');
      expectError(await v2(w.tenant, `/users/${w.customer.id}/external/campaigns/no-such-campaign/perform`), 404, 'not_found');
    });

    it("another organization's campaign or customer → 404 not_found", async () => {
      const other = await world();
      expectError(await v2(w.tenant, byId(w.customer, other.campaign)), 404, 'not_found');
      expectError(await v2(w.tenant, `/users/${w.customer.id}/external/campaigns/${other.campaign.permalink}/perform`), 404, 'not_found');
      expectError(await v2(w.tenant, byId(other.customer, w.campaign)), 404, 'not_found');
      expect((await user(other.tenant, other.customer)).available_points).toBe(0);
    });

    it('a deleted campaign → 404 not_found', async () => {
      const campaign = await createCampaign(app, w.tenant);
      await api(app, w.tenant).delete(`/management/campaigns/${campaign.id}`).expect(200);
      expectError(await v2(w.tenant, byId(w.customer, campaign)), 404, 'not_found');
    });

    it('a campaign that is not live, not started or over → 422 failed_to_perform', async () => {
      const now = Date.now();
      const campaigns = [
        await createCampaign(app, w.tenant, { status: 'paused' }),
        await createCampaign(app, w.tenant, { status: 'draft' }),
        await createCampaign(app, w.tenant, { starts_at: new Date(now + DAY).toISOString(), ends_at: new Date(now + 2 * DAY).toISOString() }),
        await createCampaign(app, w.tenant, { starts_at: new Date(now - 2 * DAY).toISOString(), ends_at: new Date(now - DAY).toISOString() }),
      ];
      for (const campaign of campaigns) {
        await createBehaviors(app, w.tenant, campaign.id, [{ name: uniq('B'), event: 'x', points: 5, data: { max_times_achievable: 1 } }]);
        expectError(await v2(w.tenant, byId(w.customer, campaign)), 422, 'failed_to_perform');
      }
      expect((await user(w.tenant, w.customer)).available_points).toBe(0);
      expect(await ledger(w.customer)).toEqual([]);
    });

    it('a campaign already completed through events → 422 failed_to_perform', async () => {
      const c = await createCustomer(app, w.tenant);
      await api(app, w.tenant)
        .post(`/users/${c.id}/events`)
        .send({ events: { visit: 3, store: [{ store_id: 'A' }, { store_id: 'B' }], review: 1 } })
        .expect(200);
      const before = await user(w.tenant, c);
      expect(before.available_points).toBe(92);
      expectError(await v2(w.tenant, byId(c, w.campaign)), 422, 'failed_to_perform');
      expect((await user(w.tenant, c)).available_points).toBe(92);
    });

    it('a second perform → 422 failed_to_perform, and nothing more is credited', async () => {
      const c = await createCustomer(app, w.tenant);
      await v2(w.tenant, byId(c, w.campaign)).expect(200);
      expectError(await v2(w.tenant, byId(c, w.campaign)), 422, 'failed_to_perform');
      const after = await user(w.tenant, c);
      expect(after.available_points).toBe(92);
      const rows = await ledger(c);
      expect(rows.reduce((sum, r) => sum + Number(r.amount), 0)).toBe(after.available_points);
    });

    it('concurrent performs for one customer complete the campaign once', async () => {
      const c = await createCustomer(app, w.tenant);
      const answers = await Promise.all([0, 1, 2].map(() => v2(w.tenant, byId(c, w.campaign))));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 422, 422]);
      const after = await user(w.tenant, c);
      expect(after.available_points).toBe(92);
      expect((await ledger(c)).reduce((sum, r) => sum + Number(r.amount), 0)).toBe(92);
    });

    it('wrong credentials → 401 unauthorized', async () => {
      const res = await request(app.getHttpServer())
        .post(`/priv/v2/apps/${w.tenant.apiKey}${byId(w.customer, w.campaign)}`)
        .auth(w.tenant.apiKey, 'wrong')
        .send({ domain: 'complete_campaign' });
      expectError(res, 401, 'unauthorized');
    });
  });
});
