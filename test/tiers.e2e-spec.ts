import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectErrorSorted as expectError } from './support/errors.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface TierBody {
  id: number;
  name: string;
  min_points: number;
  retain_points: number;
  created_at: string;
  updated_at: string;
  deleted_at?: string;
}

describe('management: tiers', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let counter = 0;
  /** A name and min_points no other test of the shared tenant uses. */
  const fresh = () => {
    counter += 1;
    return { name: `Tier ${counter}`, min_points: 100_000 + counter * 10 };
  };

  async function createTier(owner: TestTenant, tier: { name: string; min_points: number } = fresh()): Promise<TierBody> {
    const res = await api(app, owner).post('/management/tiers').send({ tier }).expect(201);
    return res.body.tier;
  }

  async function listTiers(owner: TestTenant): Promise<TierBody[]> {
    return (await api(app, owner).get('/management/tiers').expect(200)).body.tiers;
  }

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    tenant = await createTenant(app);
    otherTenant = await createTenant(app);
  });
  afterAll(() => app.close());

  describe('POST /management/tiers', () => {
    it('answers 201 with exactly the tier, and GET answers it the same', async () => {
      const res = await api(app, tenant).post('/management/tiers').send({ tier: { name: 'Silver', min_points: 100 } }).expect(201);
      expect(res.body).toEqual({
        status: 'ok',
        tier: {
          id: expect.any(Number),
          name: 'Silver',
          min_points: 100,
          retain_points: 100,
          created_at: expect.stringMatching(ISO_UTC_MS),
          updated_at: expect.stringMatching(ISO_UTC_MS),
        },
      });
      const read = await api(app, tenant).get(`/management/tiers/${res.body.tier.id}`).expect(200);
      expect(read.body).toEqual({ status: 'ok', tier: res.body.tier });
    });

    it('accepts min_points 0 and a name of 100 characters', async () => {
      const name = 'n'.repeat(100);
      const tier = await createTier(tenant, { name, min_points: 0 });
      expect(tier).toEqual(expect.objectContaining({ name, min_points: 0 }));
    });

    it('rejects a name already used in the organization, in any case, with 400 validation on tier.name', async () => {
      const tier = await createTier(tenant);
      const res = await api(app, tenant).post('/management/tiers').send({ tier: { name: tier.name.toUpperCase(), min_points: fresh().min_points } });
      expect(expectError(res, 400, 'validation')).toEqual(['tier.name']);
    });

    it('rejects min_points already used by another tier with 400 validation on tier.min_points', async () => {
      const tier = await createTier(tenant);
      const res = await api(app, tenant).post('/management/tiers').send({ tier: { name: fresh().name, min_points: tier.min_points } });
      expect(expectError(res, 400, 'validation')).toEqual(['tier.min_points']);
      expect(res.body.errors.message).toContain(tier.name);
    });

    it('names both clashes at once when name and min_points are both taken', async () => {
      const tier = await createTier(tenant);
      const res = await api(app, tenant).post('/management/tiers').send({ tier: { name: tier.name, min_points: tier.min_points } });
      expect(expectError(res, 400, 'validation')).toEqual(['tier.min_points', 'tier.name']);
    });

    it('allows the name and min_points of another organization', async () => {
      const theirs = await createTier(otherTenant);
      const mine = await createTier(tenant, { name: theirs.name, min_points: theirs.min_points });
      expect(mine.id).not.toBe(theirs.id);
    });

    it('answers 400 missing_data naming `tier` when the wrapper is absent', async () => {
      expect(expectError(await api(app, tenant).post('/management/tiers').send({}), 400, 'missing_data')).toEqual(['tier']);
    });

    it.each([
      ['an absent name', { min_points: 10 }, ['tier.name']],
      ['absent min_points', { name: 'No points' }, ['tier.min_points']],
      ['both absent', {}, ['tier.min_points', 'tier.name']],
      ['a null name', { name: null, min_points: 10 }, ['tier.name']],
    ])('answers 400 missing_data for %s', async (_label, tier, fields) => {
      expect(expectError(await api(app, tenant).post('/management/tiers').send({ tier }), 400, 'missing_data')).toEqual(fields);
    });

    it.each([
      ['top level', { tier: { name: 'X', min_points: 1 }, color: 'gold' }, ['color']],
      ['inside tier', { tier: { name: 'X', min_points: 1, id: 5, color: 'gold' } }, ['tier.color', 'tier.id']],
    ])('answers 400 argument_error for unknown members %s and creates nothing', async (_label, body, fields) => {
      const before = await listTiers(tenant);
      expect(expectError(await api(app, tenant).post('/management/tiers').send(body), 400, 'argument_error')).toEqual(fields);
      expect(await listTiers(tenant)).toEqual(before);
    });

    it.each([
      ['an empty name', { name: '', min_points: 1 }, 'tier.name'],
      ['a blank name', { name: '   ', min_points: 1 }, 'tier.name'],
      ['a name over 100 characters', { name: 'n'.repeat(101), min_points: 1 }, 'tier.name'],
      ['a name that is not a string', { name: 7, min_points: 1 }, 'tier.name'],
      ['negative min_points', { name: 'Neg', min_points: -1 }, 'tier.min_points'],
      ['decimal min_points', { name: 'Dec', min_points: 1.5 }, 'tier.min_points'],
      ['min_points as a string', { name: 'Str', min_points: '10' }, 'tier.min_points'],
      ['min_points beyond the integer range', { name: 'Big', min_points: 2_147_483_648 }, 'tier.min_points'],
    ])('answers 400 validation for %s', async (_label, tier, field) => {
      expect(expectError(await api(app, tenant).post('/management/tiers').send({ tier }), 400, 'validation')).toEqual([field]);
    });

    it('answers 401 unauthorized with a wrong secret', async () => {
      const res = await api(app, { ...tenant, apiSecret: 'wrong' }).post('/management/tiers').send({ tier: fresh() });
      expectError(res, 401, 'unauthorized');
    });
  });

  describe('retain_points (contract §17)', () => {
    it('defaults to min_points and follows it, is kept when set, goes back to the default with null', async () => {
      const { name, min_points } = fresh();
      const tier = (await api(app, tenant).post('/management/tiers').send({ tier: { name, min_points, retain_points: 40 } }).expect(201)).body.tier;
      expect(tier.retain_points).toBe(40);
      const raised = (await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { min_points: min_points + 5 } }).expect(200)).body.tier;
      expect(raised).toMatchObject({ min_points: min_points + 5, retain_points: 40 });
      const reset = (await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { retain_points: null } }).expect(200)).body.tier;
      expect(reset.retain_points).toBe(min_points + 5);
      expect((await createTier(tenant)).retain_points).toBe((await listTiers(tenant)).at(-1)!.min_points);
    });

    it('answers 400 validation for retain_points above min_points, below 0 or not an integer, naming it; nothing changes', async () => {
      const tier = await createTier(tenant);
      expect(expectError(await api(app, tenant).post('/management/tiers').send({ tier: { ...fresh(), retain_points: 10_000_000 } }), 400, 'validation')).toEqual(['tier.retain_points']);
      expect(expectError(await api(app, tenant).post('/management/tiers').send({ tier: { ...fresh(), retain_points: -1 } }), 400, 'validation')).toEqual(['tier.retain_points']);
      expect(expectError(await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { retain_points: 'all' } }), 400, 'validation')).toEqual(['tier.retain_points']);
      // Lowering min_points under the tier's retain_points is refused the same way.
      await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { retain_points: tier.min_points } }).expect(200);
      expect(expectError(await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { min_points: tier.min_points - 1 } }), 400, 'validation')).toEqual(['tier.retain_points']);
      expect((await api(app, tenant).get(`/management/tiers/${tier.id}`).expect(200)).body.tier).toMatchObject({ min_points: tier.min_points, retain_points: tier.min_points });
    });
  });

  describe('GET /management/tiers', () => {
    it('lists the tiers lowest first, by min_points then id, whatever the order of creation', async () => {
      const own = await createTenant(app);
      const gold = await createTier(own, { name: 'Gold', min_points: 1000 });
      const bronze = await createTier(own, { name: 'Bronze', min_points: 0 });
      const silver = await createTier(own, { name: 'Silver', min_points: 500 });
      const res = await api(app, own).get('/management/tiers').expect(200);
      expect(res.body).toEqual({ status: 'ok', tiers: [bronze, silver, gold] });
    });

    it('answers an empty list for an organization without tiers', async () => {
      const own = await createTenant(app);
      expect((await api(app, own).get('/management/tiers').expect(200)).body).toEqual({ status: 'ok', tiers: [] });
    });

    it("never lists another organization's tiers", async () => {
      const theirs = await createTier(otherTenant);
      const ids = (await listTiers(tenant)).map((t) => t.id);
      expect(ids).not.toContain(theirs.id);
    });
  });

  describe('GET /management/tiers/:tier_id', () => {
    it.each([
      ['an unknown id', '2000000000'],
      ['an id that is not a number', 'gold'],
      ['an id beyond the integer range', '99999999999'],
    ])('answers 404 not_found for %s', async (_label, id) => {
      expectError(await api(app, tenant).get(`/management/tiers/${id}`), 404, 'not_found');
    });

    it("answers 404 not_found for another organization's tier, on GET, PUT and DELETE, and leaves it as it was", async () => {
      const theirs = await createTier(otherTenant);
      expectError(await api(app, tenant).get(`/management/tiers/${theirs.id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/management/tiers/${theirs.id}`).send({ tier: { name: 'Stolen' } }), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/tiers/${theirs.id}`), 404, 'not_found');
      expect((await api(app, otherTenant).get(`/management/tiers/${theirs.id}`).expect(200)).body.tier).toEqual(theirs);
    });
  });

  describe('PUT /management/tiers/:tier_id', () => {
    it('changes only the members sent', async () => {
      const tier = await createTier(tenant);
      const next = fresh();
      const res = await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { min_points: next.min_points } }).expect(200);
      // retain_points unset follows min_points.
      expect(res.body).toEqual({ status: 'ok', tier: { ...tier, min_points: next.min_points, retain_points: next.min_points, updated_at: expect.stringMatching(ISO_UTC_MS) } });
      const renamed = await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { name: next.name } }).expect(200);
      expect(renamed.body.tier).toEqual({ ...res.body.tier, name: next.name, updated_at: expect.any(String) });
      expect((await api(app, tenant).get(`/management/tiers/${tier.id}`).expect(200)).body.tier).toEqual(renamed.body.tier);
    });

    it('answers the tier unchanged for an empty body or the same values', async () => {
      const tier = await createTier(tenant);
      expect((await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: {} }).expect(200)).body).toEqual({ status: 'ok', tier });
      const same = await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { name: tier.name, min_points: tier.min_points } });
      expect(same.body).toEqual({ status: 'ok', tier });
    });

    it('lets a tier change the case of its own name', async () => {
      const tier = await createTier(tenant);
      const res = await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { name: tier.name.toUpperCase() } }).expect(200);
      expect(res.body.tier.name).toBe(tier.name.toUpperCase());
    });

    it("rejects another tier's name or min_points with 400 validation and changes nothing", async () => {
      const tier = await createTier(tenant);
      const other = await createTier(tenant);
      const byName = await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { name: other.name.toLowerCase(), min_points: 7 } });
      expect(expectError(byName, 400, 'validation')).toEqual(['tier.name']);
      const byPoints = await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { min_points: other.min_points } });
      expect(expectError(byPoints, 400, 'validation')).toEqual(['tier.min_points']);
      expect((await api(app, tenant).get(`/management/tiers/${tier.id}`).expect(200)).body.tier).toEqual(tier);
    });

    it('answers missing_data without the wrapper, argument_error for unknown members, validation for bad values', async () => {
      const tier = await createTier(tenant);
      const put = (body: object) => api(app, tenant).put(`/management/tiers/${tier.id}`).send(body);
      expect(expectError(await put({}), 400, 'missing_data')).toEqual(['tier']);
      expect(expectError(await put({ tier: { deleted_at: null } }), 400, 'argument_error')).toEqual(['tier.deleted_at']);
      expect(expectError(await put({ tier: { min_points: -5 } }), 400, 'validation')).toEqual(['tier.min_points']);
      expect(expectError(await put({ tier: { name: null } }), 400, 'validation')).toEqual(['tier.name']);
      expect(expectError(await put({ tier: { name: '' } }), 400, 'validation')).toEqual(['tier.name']);
      expect((await api(app, tenant).get(`/management/tiers/${tier.id}`).expect(200)).body.tier).toEqual(tier);
    });
  });

  describe('DELETE /management/tiers/:tier_id', () => {
    it('soft-deletes: answers the tier with the marker, then 404 everywhere, and frees name and min_points', async () => {
      const tier = await createTier(tenant);
      const res = await api(app, tenant).delete(`/management/tiers/${tier.id}`).expect(200);
      const deletedAt = res.body.tier.deleted_at as string;
      expect(deletedAt).toMatch(ISO_UTC_MS);
      expect(res.body).toEqual({
        status: 'ok',
        tier: { ...tier, name: `${tier.name} [DELETED AT ${deletedAt}]`, updated_at: expect.stringMatching(ISO_UTC_MS), deleted_at: deletedAt },
      });
      expectError(await api(app, tenant).get(`/management/tiers/${tier.id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { min_points: 1 } }), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/tiers/${tier.id}`), 404, 'not_found');
      expect((await listTiers(tenant)).map((t) => t.id)).not.toContain(tier.id);
      const again = await createTier(tenant, { name: tier.name, min_points: tier.min_points });
      expect(again.id).not.toBe(tier.id);
    });

    it('leaves customers on the deleted tier, whose name they answer with the marker', async () => {
      const tier = await createTier(tenant);
      const customer = await createCustomer(app, tenant);
      await db.query(`UPDATE customers SET tier_id = $1 WHERE id = $2`, [tier.id, customer.id]);
      expect((await api(app, tenant).get(`/users/${customer.id}`).expect(200)).body.user.tier).toBe(tier.name);
      const deleted = await api(app, tenant).delete(`/management/tiers/${tier.id}`).expect(200);
      const read = await api(app, tenant).get(`/users/${customer.id}`).expect(200);
      expect(read.body.user.tier).toBe(`${tier.name} [DELETED AT ${deleted.body.tier.deleted_at}]`);
      const [row] = await db.query(`SELECT tier_id FROM customers WHERE id = $1`, [customer.id]);
      expect(row.tier_id).toBe(tier.id);
    });
  });

  describe("GET .../users/:user_id/tier (a customer's tier standing)", () => {
    it('answers the tier, the qualifying points under lifetime, and the next tier with the points it still needs', async () => {
      const owner = await createTenant(app);
      const silver = await createTier(owner, { name: 'Silver', min_points: 100 });
      const gold = await createTier(owner, { name: 'Gold', min_points: 500 });
      const campaign = await createCampaign(app, owner);
      const visit = { name: 'Visit', points: 150, data: {}, goal_groups: [{ goals: [{ achievement: { name: 'visit', event_count: 1 } }] }] };
      await api(app, owner).post(`/management/campaigns/${campaign.id}/behaviors/_batch`).send({ behaviors: [visit] }).expect(201);
      const customer = await createCustomer(app, owner);
      const standing = async () => (await api(app, owner).get(`/users/${customer.id}/tier`).expect(200)).body;
      expect(await standing()).toEqual({
        status: 'ok',
        tier: null,
        basis: 'lifetime',
        period: null,
        qualifying_points: 0,
        retain_points: null,
        next_tier: { id: silver.id, name: 'Silver', min_points: 100, points_needed: 100 },
        review_at: null,
        tier_after_review: null,
      });
      await api(app, owner).post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);
      expect(await standing()).toMatchObject({
        tier: { id: silver.id, name: 'Silver' },
        qualifying_points: 150,
        retain_points: 100,
        next_tier: { id: gold.id, name: 'Gold', min_points: 500, points_needed: 350 },
      });
      for (let i = 0; i < 3; i += 1) await api(app, owner).post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);
      const top = (await api(app, owner).get(`/external/users/${customer.external_id}/tier`).expect(200)).body;
      expect(top).toMatchObject({ tier: { id: gold.id, name: 'Gold' }, qualifying_points: 600, retain_points: 500, next_tier: null });
    });

    it('answers 404 not_found for a customer of another organization, an unknown one and a malformed id', async () => {
      const customer = await createCustomer(app, otherTenant);
      expectError(await api(app, tenant).get(`/users/${customer.id}/tier`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/external/users/${customer.external_id}/tier`), 404, 'not_found');
      expectError(await api(app, tenant).get('/users/00000000-0000-4000-8000-000000000000/tier'), 404, 'not_found');
      expectError(await api(app, tenant).get('/users/not-a-uuid/tier'), 404, 'not_found');
    });
  });

  describe('a tier named by a tier outcome', () => {
    async function behaviorNaming(tierName: string): Promise<number> {
      const campaign = await createCampaign(app, tenant);
      const outcomes = [{ id: 1, tier: { name: tierName }, created_at: new Date().toISOString(), updated_at: new Date().toISOString() }];
      const [row] = await db.query(
        `INSERT INTO behaviors (organization_id, campaign_id, name, outcome_config) VALUES ($1, $2, $3, $4) RETURNING id`,
        [tenant.organizationId, campaign.id, `Reach ${tierName} ${Date.now()}`, JSON.stringify(outcomes)],
      );
      return row.id;
    }

    it('cannot be renamed or deleted while a live behavior names it; min_points can change', async () => {
      const tier = await createTier(tenant);
      const behaviorId = await behaviorNaming(tier.name);
      const rename = await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { name: `${tier.name} renamed` } });
      expect(expectError(rename, 400, 'validation')).toEqual(['tier.name']);
      expect(rename.body.errors.message).toContain(String(behaviorId));
      expect(expectError(await api(app, tenant).delete(`/management/tiers/${tier.id}`), 400, 'validation')).toEqual(['tier_id']);
      const next = fresh().min_points;
      await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { min_points: next } }).expect(200);

      await db.query(`UPDATE behaviors SET deleted_at = now() WHERE id = $1`, [behaviorId]);
      await api(app, tenant).put(`/management/tiers/${tier.id}`).send({ tier: { name: `${tier.name} renamed` } }).expect(200);
      await api(app, tenant).delete(`/management/tiers/${tier.id}`).expect(200);
    });
  });
});
