import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from './support/app.js';
import { expectErrorSorted as expectError } from './support/errors.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface AuditEntry {
  id: string;
  action: string;
  object_type: string;
  object_id: string;
  api_key: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  created_at: string;
}

/** The entry the log should hold for one change made with `who`. */
function entry(who: TestTenant, action: string, objectType: string, objectId: number, before: object | null, after: object | null) {
  return { id: expect.any(String), action, object_type: objectType, object_id: String(objectId), api_key: who.apiKey, before, after, created_at: expect.stringMatching(ISO_UTC_MS) };
}

describe('management: audit log', () => {
  let app: INestApplication;
  let counter = 0;
  const nextName = (kind: string) => `${kind} ${++counter}`;

  async function auditLog(owner: TestTenant, query = 'limit=100') {
    return (await api(app, owner).get(`/management/audit_log?${query}`).expect(200)).body as {
      status: string;
      audit_log: AuditEntry[];
      page: number;
      limit: number;
      total: number;
    };
  }

  async function createTier(owner: TestTenant, minPoints: number) {
    const res = await api(app, owner).post('/management/tiers').send({ tier: { name: nextName('Tier'), min_points: minPoints } }).expect(201);
    return res.body.tier as { id: number; name: string; min_points: number };
  }

  /** A second application of the organization, with api key and secret of its own. */
  async function secondKey(owner: TestTenant): Promise<TestTenant> {
    const res = await request(app.getHttpServer())
      .post(`/admin/v1/organizations/${owner.organizationId}/applications`)
      .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
      .send({ application: { name: 'POS' } })
      .expect(201);
    return { ...owner, apiKey: res.body.api_key, apiSecret: res.body.api_secret };
  }

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('is empty for a new organization', async () => {
    const own = await createTenant(app);
    expect(await auditLog(own, '')).toEqual({ status: 'ok', audit_log: [], page: 1, limit: 10, total: 0 });
  });

  it('records campaign, tier and division writes, newest first: who, action, object, before and after', async () => {
    const own = await createTenant(app, { multi_org_enabled: true });
    const campaign = await createCampaign(app, own);
    const put = { name: campaign.name, status: 'paused', starts_at: campaign.starts_at, ends_at: campaign.ends_at };
    const campaignUpdated = (await api(app, own).put(`/management/campaigns/${campaign.id}`).send({ campaign: put }).expect(200)).body.campaign;
    const tier = await createTier(own, 100);
    const tierUpdated = (await api(app, own).put(`/management/tiers/${tier.id}`).send({ tier: { min_points: 250 } }).expect(200)).body.tier;
    const division = (
      await api(app, own).post('/management/divisions').send({ division: { name: 'North', parent_id: own.rootDivisionId } }).expect(201)
    ).body.division;
    const divisionRenamed = (await api(app, own).put(`/management/divisions/${division.id}`).send({ division: { name: 'Nord' } }).expect(200)).body.division;
    const divisionDeleted = (await api(app, own).delete(`/management/divisions/${division.id}`).expect(200)).body.division;
    const tierDeleted = (await api(app, own).delete(`/management/tiers/${tier.id}`).expect(200)).body.tier;
    const campaignDeleted = (await api(app, own).delete(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign;

    const log = await auditLog(own);
    expect(log.total).toBe(9);
    expect(log.audit_log).toEqual([
      entry(own, 'delete', 'campaign', campaign.id, campaignUpdated, campaignDeleted),
      entry(own, 'delete', 'tier', tier.id, tierUpdated, tierDeleted),
      entry(own, 'delete', 'division', division.id, divisionRenamed, divisionDeleted),
      entry(own, 'update', 'division', division.id, division, divisionRenamed),
      entry(own, 'create', 'division', division.id, null, division),
      entry(own, 'update', 'tier', tier.id, tier, tierUpdated),
      entry(own, 'create', 'tier', tier.id, null, tier),
      entry(own, 'update', 'campaign', campaign.id, campaign, campaignUpdated),
      entry(own, 'create', 'campaign', campaign.id, null, campaign),
    ]);
    expect(divisionDeleted.name).toMatch(/^Nord \[DELETED AT .+\]$/);
    const times = log.audit_log.map((e) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const ids = log.audit_log.map((e) => Number(e.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names the api key that made each change; every key of the organization reads the same log', async () => {
    const own = await createTenant(app);
    const pos = await secondKey(own);
    const first = await createTier(own, 10);
    const second = await createTier(pos, 20);
    const viaWeb = await auditLog(own);
    expect(viaWeb.audit_log).toEqual([entry(pos, 'create', 'tier', second.id, null, second), entry(own, 'create', 'tier', first.id, null, first)]);
    expect(await auditLog(pos)).toEqual(viaWeb);
  });

  it('pages newest first with page, limit and total', async () => {
    const own = await createTenant(app);
    const tiers = [];
    for (let i = 0; i < 5; i += 1) tiers.push(await createTier(own, i * 10));
    const newestFirst = tiers.map((t) => String(t.id)).reverse();
    const page = async (n: number) => auditLog(own, `limit=2&page=${n}`);
    const [one, two, three, four] = [await page(1), await page(2), await page(3), await page(4)];
    expect(one).toEqual(expect.objectContaining({ status: 'ok', page: 1, limit: 2, total: 5 }));
    expect(one.audit_log.map((e) => e.object_id)).toEqual(newestFirst.slice(0, 2));
    expect(two.audit_log.map((e) => e.object_id)).toEqual(newestFirst.slice(2, 4));
    expect(three.audit_log.map((e) => e.object_id)).toEqual(newestFirst.slice(4));
    expect(four).toEqual({ status: 'ok', audit_log: [], page: 4, limit: 2, total: 5 });
    expect((await auditLog(own, '')).audit_log).toHaveLength(5);
  });

  it.each(['limit=0', 'limit=101', 'limit=ten', 'page=0', 'page=-1'])('answers 400 validation for %s', async (query) => {
    const own = await createTenant(app);
    const res = await api(app, own).get(`/management/audit_log?${query}`);
    expect(expectError(res, 400, 'validation')).toEqual([query.split('=')[0]]);
  });

  it('records nothing for a refused write or a write that changes nothing', async () => {
    const own = await createTenant(app);
    const tier = await createTier(own, 10);
    const { total } = await auditLog(own);
    expect(total).toBe(1);
    expectError(await api(app, own).post('/management/tiers').send({ tier: { name: tier.name, min_points: 99 } }), 400, 'validation');
    expectError(await api(app, own).post('/management/tiers').send({ tier: { name: 'Other', min_points: tier.min_points } }), 400, 'validation');
    expectError(await api(app, own).delete(`/management/divisions/${own.rootDivisionId}`), 400, 'validation');
    expectError(await api(app, own).put('/management/tiers/2000000000').send({ tier: { min_points: 1 } }), 404, 'not_found');
    await api(app, own).put(`/management/tiers/${tier.id}`).send({ tier: {} }).expect(200);
    await api(app, own).put(`/management/divisions/${own.rootDivisionId}`).send({ division: { name: 'Root' } }).expect(200);
    expect((await auditLog(own)).total).toBe(1);
  });

  it("shows each organization only its own changes, and 401 without the organization's credentials", async () => {
    const own = await createTenant(app);
    const other = await createTenant(app);
    const mine = await createTier(own, 10);
    const theirs = await createTier(other, 10);
    expect((await auditLog(own)).audit_log).toEqual([entry(own, 'create', 'tier', mine.id, null, mine)]);
    expect((await auditLog(other)).audit_log).toEqual([entry(other, 'create', 'tier', theirs.id, null, theirs)]);
    const crossed = await request(app.getHttpServer()).get(`/priv/v1/apps/${own.apiKey}/management/audit_log`).auth(own.apiKey, other.apiSecret);
    expectError(crossed, 401, 'unauthorized');
  });
});
