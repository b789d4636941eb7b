import type { INestApplication } from '@nestjs/common';
import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectError } from './support/errors.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const STARTS = '2026-03-01T00:00:00Z';
const ENDS = '2026-06-01T00:00:00Z';
const STARTS_OUT = '2026-03-01T00:00:00.000Z';
const ENDS_OUT = '2026-06-01T00:00:00.000Z';
/** Stands for the other organization's root division in tables built before the organizations exist. */
const OTHER_ROOT = 'other-organization-root-division';

interface CampaignView {
  id: number;
  name: string;
  permalink: string;
  status: string;
  starts_at: string;
  ends_at: string;
  division_id: number;
  opt_in_required: boolean;
  prerequisite_campaign_ids: number[];
  targeting: unknown[];
  created_at: string;
  updated_at: string;
  deleted_at?: string;
}

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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('campaigns', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let seq = 0;
  const run = Date.now().toString(36);
  /** A name unique in this run, made of lowercase-able ASCII words so its generated permalink is predictable. */
  const uniqueName = (prefix = 'Campaign') => `${prefix} ${++seq} ${run}`;
  const slugOf = (plainName: string) => plainName.toLowerCase().replace(/ /g, '-');

  /** A valid create body member; `overrides` replace or add members (undefined removes one). */
  function campaignInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
    const input: Record<string, unknown> = { name: uniqueName(), starts_at: STARTS, ends_at: ENDS, ...overrides };
    for (const [key, value] of Object.entries(input)) if (value === undefined) delete input[key];
    return input;
  }

  async function create(owner: TestTenant, overrides: Record<string, unknown> = {}): Promise<CampaignView> {
    const res = await api(app, owner).post('/management/campaigns').send({ campaign: campaignInput(overrides) });
    expect(res.status).toBe(201);
    return res.body.campaign as CampaignView;
  }

  async function total(owner: TestTenant): Promise<number> {
    const res = await api(app, owner).get('/management/campaigns?limit=1').expect(200);
    return res.body.total as number;
  }

  /** The four members PUT requires, taken from a campaign view. */
  function putBody(campaign: CampaignView, overrides: Record<string, unknown> = {}) {
    const input: Record<string, unknown> = {
      name: campaign.name,
      status: campaign.status,
      starts_at: campaign.starts_at,
      ends_at: campaign.ends_at,
      ...overrides,
    };
    for (const [key, value] of Object.entries(input)) if (value === undefined) delete input[key];
    return { campaign: input };
  }

  /** A division of the organization, created directly in the database under its root division. */
  async function insertDivision(owner: TestTenant, name: string): Promise<number> {
    const rows: Array<{ id: number }> = await db.query(
      `INSERT INTO divisions (organization_id, parent_id, name, ancestor_ids) VALUES ($1, $2, $3, ARRAY[$2::int]) RETURNING id`,
      [owner.organizationId, owner.rootDivisionId, `${name} ${++seq}`],
    );
    await db.query(`UPDATE divisions SET ancestor_ids = ancestor_ids || id WHERE id = $1`, [rows[0].id]);
    return rows[0].id;
  }

  async function insertRow(table: string, values: Record<string, unknown>): Promise<number> {
    const keys = Object.keys(values);
    const rows: Array<{ id: number }> = await db.query(
      `INSERT INTO ${table} (${keys.join(', ')}) VALUES (${keys.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      Object.values(values),
    );
    return rows[0].id;
  }

  async function auditLog(owner: TestTenant, query = 'limit=100'): Promise<{ audit_log: AuditEntry[]; total: number }> {
    const res = await api(app, owner).get(`/management/audit_log?${query}`).expect(200);
    return res.body;
  }

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    tenant = await createTenant(app);
    otherTenant = await createTenant(app);
  });
  afterAll(() => app.close());

  describe('POST /management/campaigns', () => {
    it('creates a draft campaign with the defaults and answers every field, the same on GET', async () => {
      const name = uniqueName('Spring Visits');
      const before = await total(tenant);
      const res = await api(app, tenant).post('/management/campaigns').send({ campaign: { name, starts_at: STARTS, ends_at: ENDS } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        status: 'ok',
        campaign: {
          id: expect.any(Number),
          name,
          permalink: slugOf(name),
          status: 'draft',
          starts_at: STARTS_OUT,
          ends_at: ENDS_OUT,
          division_id: tenant.rootDivisionId,
          opt_in_required: false,
          prerequisite_campaign_ids: [],
          targeting: [],
          budget: null,
          budget_used: { completions: 0, points: 0 },
          experiment: null,
          created_at: expect.stringMatching(ISO_UTC_MS),
          updated_at: expect.stringMatching(ISO_UTC_MS),
        },
      });
      const campaign = res.body.campaign as CampaignView;
      expect(Number.isInteger(campaign.id) && campaign.id > 0).toBe(true);
      expect(campaign).not.toHaveProperty('deleted_at');
      expect(Date.parse(campaign.updated_at)).toBeGreaterThanOrEqual(Date.parse(campaign.created_at));
      expect(await total(tenant)).toBe(before + 1);

      const byId = await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200);
      expect(byId.body).toEqual({ status: 'ok', campaign });
      const byPermalink = await api(app, tenant).get(`/management/external/campaigns/${campaign.permalink}`).expect(200);
      expect(byPermalink.body).toEqual({ status: 'ok', campaign });
    });

    it.each([
      ['the seed form with a numeric offset', '2026-01-05 10:00:00 +0200', '2026-01-05T08:00:00.000Z'],
      ['the seed form with a negative offset', '2026-01-05 10:00:00 -0530', '2026-01-05T15:30:00.000Z'],
      ['ISO 8601 UTC', '2026-01-05T10:00:00Z', '2026-01-05T10:00:00.000Z'],
      ['ISO 8601 with milliseconds and an offset', '2026-01-05T10:00:00.123+02:00', '2026-01-05T08:00:00.123Z'],
    ])('accepts starts_at in %s and answers it in ISO UTC with milliseconds', async (_label, input, output) => {
      const campaign = await create(tenant, { starts_at: input, ends_at: '2026-02-01 00:00:00 +0100' });
      expect(campaign.starts_at).toBe(output);
      expect(campaign.ends_at).toBe('2026-01-31T23:00:00.000Z');
      const read = await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200);
      expect(read.body.campaign.starts_at).toBe(output);
    });

    it('stores and echoes every optional member', async () => {
      const divisionId = await insertDivision(tenant, 'Stores');
      const first = await create(tenant);
      const second = await create(tenant);
      const targeting = [
        { field: 'user.tags', op: 'contains', value: 'vip' },
        { field: 'user.tier', op: 'in', value: ['Gold', 'Silver'] },
        { field: 'user.attributes.plan', op: 'ne', value: 'free' },
        { field: 'user.lifetime_points', op: 'gte', value: 100 },
        { field: 'user.attributes.newsletter', op: 'exists', value: true },
        { field: 'user.division_id', op: 'nin', value: [99] },
      ];
      const name = uniqueName('Everything');
      const res = await api(app, tenant)
        .post('/management/campaigns')
        .send({
          campaign: {
            name,
            permalink: `everything_${seq}-x`,
            status: 'live',
            starts_at: STARTS,
            ends_at: ENDS,
            division_id: divisionId,
            opt_in_required: true,
            prerequisite_campaign_ids: [first.id, second.id],
            targeting,
          },
        });
      expect(res.status).toBe(201);
      expect(res.body.campaign).toEqual({
        id: expect.any(Number),
        name,
        permalink: `everything_${seq}-x`,
        status: 'live',
        starts_at: STARTS_OUT,
        ends_at: ENDS_OUT,
        division_id: divisionId,
        opt_in_required: true,
        prerequisite_campaign_ids: [first.id, second.id],
        targeting,
        budget: null,
        budget_used: { completions: 0, points: 0 },
        experiment: null,
        created_at: expect.stringMatching(ISO_UTC_MS),
        updated_at: expect.stringMatching(ISO_UTC_MS),
      });
      const read = await api(app, tenant).get(`/management/campaigns/${res.body.campaign.id}`).expect(200);
      expect(read.body.campaign).toEqual(res.body.campaign);
    });

    it.each(['draft', 'inreview', 'live', 'paused', 'completed'])('accepts status %s', async (status) => {
      const campaign = await create(tenant, { status });
      expect(campaign.status).toBe(status);
    });

    describe('permalinks', () => {
      let fresh: TestTenant;

      beforeAll(async () => {
        fresh = await createTenant(app);
      });

      it('generates the permalink from the name: lowercase, dashes, accents stripped', async () => {
        expect((await create(fresh, { name: 'Été à Paris!' })).permalink).toBe('ete-a-paris');
        expect((await create(fresh, { name: '  Crème Brûlée -- Édition   2026 ' })).permalink).toBe('creme-brulee-edition-2026');
        expect((await create(fresh, { name: 'Back_To School: 50% OFF' })).permalink).toBe('back-to-school-50-off');
      });

      it('makes a generated permalink unique with -2, -3', async () => {
        const first = await create(fresh, { name: 'Summer Sale' });
        const second = await create(fresh, { name: 'Summer sale!' });
        const third = await create(fresh, { name: '¡Summer, Sale!' });
        expect([first.permalink, second.permalink, third.permalink]).toEqual(['summer-sale', 'summer-sale-2', 'summer-sale-3']);
        const byPermalink = await api(app, fresh).get('/management/external/campaigns/summer-sale-3').expect(200);
        expect(byPermalink.body.campaign.id).toBe(third.id);
      });

      it('avoids a permalink set explicitly by another campaign', async () => {
        await create(fresh, { name: 'Something else', permalink: 'winter-deal' });
        expect((await create(fresh, { name: 'Winter Deal' })).permalink).toBe('winter-deal-2');
      });

      it('never ends a generated permalink with a dash when a long name is shortened', async () => {
        const campaign = await create(fresh, { name: `${'a'.repeat(89)} b` });
        expect(campaign.permalink).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
        expect(`${'a'.repeat(89)}-b`.startsWith(campaign.permalink)).toBe(true);
      });

      it('gives concurrent creates of names with the same permalink distinct permalinks instead of an error', async () => {
        const names = ['Race Day', 'Race day!', 'RACE-day', 'race  day', '¡Race Day?'];
        const responses = await Promise.all(
          names.map((name) => api(app, fresh).post('/management/campaigns').send({ campaign: { name, starts_at: STARTS, ends_at: ENDS } })),
        );
        expect(responses.map((r) => [r.status, r.body.errors ?? null])).toEqual(names.map(() => [201, null]));
        const permalinks = responses.map((r) => r.body.campaign.permalink as string).sort();
        expect(permalinks).toEqual(['race-day', 'race-day-2', 'race-day-3', 'race-day-4', 'race-day-5']);
      });

      it('keeps an explicit permalink as given', async () => {
        const campaign = await create(fresh, { name: 'Explicit Link', permalink: 'my-own_link-1' });
        expect(campaign.permalink).toBe('my-own_link-1');
        const read = await api(app, fresh).get('/management/external/campaigns/my-own_link-1').expect(200);
        expect(read.body.campaign).toEqual(campaign);
        expectError(await api(app, fresh).get('/management/external/campaigns/explicit-link'), 404, 'not_found');
      });
    });

    describe('uniqueness', () => {
      it('rejects a name already used, compared case-insensitively, with 400 validation naming campaign.name', async () => {
        const existing = await create(tenant);
        const before = await total(tenant);
        const res = await api(app, tenant)
          .post('/management/campaigns')
          .send({ campaign: campaignInput({ name: existing.name.toUpperCase(), permalink: `other-${seq}-${run}` }) });
        expect(expectError(res, 400, 'validation')).toEqual(['campaign.name']);
        const exact = await api(app, tenant).post('/management/campaigns').send({ campaign: campaignInput({ name: existing.name }) });
        expect(expectError(exact, 400, 'validation')).toEqual(['campaign.name']);
        expect(await total(tenant)).toBe(before);
      });

      it('rejects a permalink already used with 400 validation naming campaign.permalink', async () => {
        const existing = await create(tenant);
        const before = await total(tenant);
        const res = await api(app, tenant).post('/management/campaigns').send({ campaign: campaignInput({ permalink: existing.permalink }) });
        expect(expectError(res, 400, 'validation')).toEqual(['campaign.permalink']);
        expect(await total(tenant)).toBe(before);
      });

      it('allows the name and permalink of a campaign of another organization', async () => {
        const existing = await create(tenant);
        const res = await api(app, otherTenant)
          .post('/management/campaigns')
          .send({ campaign: campaignInput({ name: existing.name, permalink: existing.permalink }) })
          .expect(201);
        expect(res.body.campaign).toEqual(expect.objectContaining({ name: existing.name, permalink: existing.permalink }));
        expect(res.body.campaign.id).not.toBe(existing.id);
      });
    });

    it.each([
      ['equal to starts_at', STARTS],
      ['before starts_at', '2026-02-28T23:59:59.999Z'],
      ['before starts_at in the seed form', '2026-03-01 00:59:00 +0100'],
    ])('rejects ends_at %s with 400 validation naming campaign.ends_at', async (_label, endsAt) => {
      const before = await total(tenant);
      const res = await api(app, tenant).post('/management/campaigns').send({ campaign: campaignInput({ ends_at: endsAt }) });
      expect(expectError(res, 400, 'validation')).toEqual(['campaign.ends_at']);
      expect(await total(tenant)).toBe(before);
    });

    it.each([
      ['an unknown status', { status: 'active' }, 'campaign.status'],
      ['a null status', { status: null }, 'campaign.status'],
      ['an upper-case status', { status: 'LIVE' }, 'campaign.status'],
      ['a date that does not exist (2026-02-30)', { starts_at: '2026-02-30T10:00:00Z' }, 'campaign.starts_at'],
      ['a month 13', { starts_at: '2026-13-01T00:00:00Z' }, 'campaign.starts_at'],
      ['an hour 25', { ends_at: '2026-05-01T25:00:00Z' }, 'campaign.ends_at'],
      ['free text as a date', { ends_at: 'next tuesday' }, 'campaign.ends_at'],
      ['a number as a date', { starts_at: 1767607200000 }, 'campaign.starts_at'],
      ['an empty name', { name: '' }, 'campaign.name'],
      ['a name that is not a string', { name: 42 }, 'campaign.name'],
      ['a name over 255 characters', { name: 'x'.repeat(256) }, 'campaign.name'],
      ['a permalink with spaces', { permalink: 'has spaces' }, 'campaign.permalink'],
      ['an upper-case permalink', { permalink: 'Upper' }, 'campaign.permalink'],
      ['a permalink starting with a dash', { permalink: '-leading' }, 'campaign.permalink'],
      ['a permalink with a slash', { permalink: 'a/b' }, 'campaign.permalink'],
      ['an empty permalink', { permalink: '' }, 'campaign.permalink'],
      ['a permalink over 100 characters', { permalink: 'a'.repeat(101) }, 'campaign.permalink'],
      ['a division id that is not an integer', { division_id: 'root' }, 'campaign.division_id'],
      ['a division id of 0', { division_id: 0 }, 'campaign.division_id'],
      ['a division id beyond the integer range', { division_id: 99_999_999_999 }, 'campaign.division_id'],
      ['a division that does not exist', { division_id: 2_000_000_000 }, 'campaign.division_id'],
      ['opt_in_required that is not a boolean', { opt_in_required: 'yes' }, 'campaign.opt_in_required'],
      ['prerequisites that are not an array', { prerequisite_campaign_ids: 5 }, 'campaign.prerequisite_campaign_ids'],
      ['prerequisites that are not integers', { prerequisite_campaign_ids: ['one'] }, 'campaign.prerequisite_campaign_ids'],
      ['a prerequisite id of 0', { prerequisite_campaign_ids: [0] }, 'campaign.prerequisite_campaign_ids'],
      ['an unknown prerequisite campaign', { prerequisite_campaign_ids: [2_000_000_000] }, 'campaign.prerequisite_campaign_ids'],
      ['targeting that is not an array', { targeting: { field: 'user.tags', op: 'eq', value: 'x' } }, 'campaign.targeting'],
      ['targeting on an unknown field', { targeting: [{ field: 'user.email', op: 'eq', value: 'a@b.c' }] }, 'campaign.targeting'],
      ['targeting on an event field', { targeting: [{ field: 'context.app', op: 'eq', value: 'x' }] }, 'campaign.targeting'],
      ['targeting with an unknown op', { targeting: [{ field: 'user.tags', op: 'like', value: 'vip' }] }, 'campaign.targeting'],
      ['targeting `in` without an array', { targeting: [{ field: 'user.tier', op: 'in', value: 'Gold' }] }, 'campaign.targeting'],
      ['targeting `nin` without an array', { targeting: [{ field: 'user.tier', op: 'nin', value: 'Gold' }] }, 'campaign.targeting'],
      ['targeting without a value', { targeting: [{ field: 'user.tier', op: 'eq' }] }, 'campaign.targeting'],
      ['targeting with an unknown member', { targeting: [{ field: 'user.tier', op: 'eq', value: 'Gold', weight: 2 }] }, 'campaign.targeting'],
      ['null targeting', { targeting: null }, 'campaign.targeting'],
    ])('rejects %s with 400 validation naming the field and creates nothing', async (_label, member, field) => {
      const before = await total(tenant);
      const res = await api(app, tenant).post('/management/campaigns').send({ campaign: campaignInput(member) });
      expect(expectError(res, 400, 'validation')).toContain(field);
      expect(await total(tenant)).toBe(before);
    });

    it('names the targeting problem in the details message', async () => {
      const res = await api(app, tenant)
        .post('/management/campaigns')
        .send({ campaign: campaignInput({ targeting: [{ field: 'user.tier', op: 'in', value: 'Gold' }] }) });
      expectError(res, 400, 'validation');
      expect(res.body.errors.details).toEqual([{ field: 'campaign.targeting', message: expect.stringContaining('array') }]);
    });

    it('rejects a division of another organization with 400 validation', async () => {
      const foreignDivision = await insertDivision(otherTenant, 'Foreign');
      const before = await total(tenant);
      const res = await api(app, tenant).post('/management/campaigns').send({ campaign: campaignInput({ division_id: foreignDivision }) });
      expect(expectError(res, 400, 'validation')).toEqual(['campaign.division_id']);
      const root = await api(app, tenant).post('/management/campaigns').send({ campaign: campaignInput({ division_id: otherTenant.rootDivisionId }) });
      expect(expectError(root, 400, 'validation')).toEqual(['campaign.division_id']);
      expect(await total(tenant)).toBe(before);
    });

    it('rejects a prerequisite campaign of another organization with 400 validation', async () => {
      const foreign = await create(otherTenant);
      const own = await create(tenant);
      const before = await total(tenant);
      const res = await api(app, tenant)
        .post('/management/campaigns')
        .send({ campaign: campaignInput({ prerequisite_campaign_ids: [own.id, foreign.id] }) });
      expect(expectError(res, 400, 'validation')).toEqual(['campaign.prerequisite_campaign_ids']);
      expect(await total(tenant)).toBe(before);
    });

    it.each([
      ['no campaign wrapper', {}, ['campaign']],
      ['a null campaign wrapper', { campaign: null }, ['campaign']],
      ['no name', { campaign: { starts_at: STARTS, ends_at: ENDS } }, ['campaign.name']],
      ['a null name', { campaign: { name: null, starts_at: STARTS, ends_at: ENDS } }, ['campaign.name']],
      ['no starts_at', { campaign: { name: 'Missing start', ends_at: ENDS } }, ['campaign.starts_at']],
      ['no ends_at', { campaign: { name: 'Missing end', starts_at: STARTS } }, ['campaign.ends_at']],
      ['an empty campaign', { campaign: {} }, ['campaign.ends_at', 'campaign.name', 'campaign.starts_at']],
    ])('answers 400 missing_data for %s, naming what is missing', async (_label, body, fields) => {
      const before = await total(tenant);
      const res = await api(app, tenant).post('/management/campaigns').send(body);
      expect(expectError(res, 400, 'missing_data').sort()).toEqual(fields);
      expect(await total(tenant)).toBe(before);
    });

    it('answers 400 validation when campaign is not an object', async () => {
      const res = await api(app, tenant).post('/management/campaigns').send({ campaign: 'Spring' });
      expect(expectError(res, 400, 'validation')).toContain('campaign');
    });

    it.each([
      ['inside campaign', { campaign: { color: 'red' } }, ['campaign.color']],
      ['inside campaign (read-only members)', { campaign: { id: 7, created_at: STARTS_OUT } }, ['campaign.created_at', 'campaign.id']],
      ['inside campaign (children)', { campaign: { line_items: [] } }, ['campaign.line_items']],
    ])('answers 400 argument_error for unknown members %s and creates nothing', async (_label, extra, fields) => {
      const before = await total(tenant);
      const body = { campaign: { ...campaignInput(), ...extra.campaign } };
      const res = await api(app, tenant).post('/management/campaigns').send(body);
      expect(expectError(res, 400, 'argument_error').sort()).toEqual(fields);
      expect(await total(tenant)).toBe(before);
    });

    it('answers 400 argument_error for an unknown top-level member', async () => {
      const before = await total(tenant);
      const res = await api(app, tenant).post('/management/campaigns').send({ campaign: campaignInput(), status: 'live' });
      expect(expectError(res, 400, 'argument_error')).toEqual(['status']);
      expect(await total(tenant)).toBe(before);
    });
  });

  describe('GET /management/campaigns (list)', () => {
    let listTenant: TestTenant;
    const created: CampaignView[] = [];

    beforeAll(async () => {
      listTenant = await createTenant(app);
      for (let i = 0; i < 12; i += 1) created.push(await create(listTenant, { name: uniqueName(`Listed ${String(i).padStart(2, '0')}`) }));
    });

    it('answers an empty list for an organization without campaigns', async () => {
      const empty = await createTenant(app);
      const res = await api(app, empty).get('/management/campaigns').expect(200);
      expect(res.body).toEqual({ status: 'ok', campaigns: [], page: 1, limit: 10, total: 0 });
    });

    it('answers the first 10, oldest first, with page, limit and total', async () => {
      const res = await api(app, listTenant).get('/management/campaigns').expect(200);
      expect(res.body).toEqual({ status: 'ok', campaigns: created.slice(0, 10), page: 1, limit: 10, total: 12 });
    });

    it('pages with limit and page', async () => {
      const second = await api(app, listTenant).get('/management/campaigns?page=2').expect(200);
      expect(second.body).toEqual({ status: 'ok', campaigns: created.slice(10), page: 2, limit: 10, total: 12 });
      const small = await api(app, listTenant).get('/management/campaigns?limit=5&page=2').expect(200);
      expect(small.body).toEqual({ status: 'ok', campaigns: created.slice(5, 10), page: 2, limit: 5, total: 12 });
      const last = await api(app, listTenant).get('/management/campaigns?limit=5&page=3').expect(200);
      expect(last.body).toEqual({ status: 'ok', campaigns: created.slice(10, 12), page: 3, limit: 5, total: 12 });
      const one = await api(app, listTenant).get('/management/campaigns?limit=1&page=12').expect(200);
      expect(one.body.campaigns).toEqual([created[11]]);
      const all = await api(app, listTenant).get('/management/campaigns?limit=100').expect(200);
      expect(all.body).toEqual({ status: 'ok', campaigns: created, page: 1, limit: 100, total: 12 });
    });

    it('answers an empty page past the end', async () => {
      const res = await api(app, listTenant).get('/management/campaigns?limit=5&page=4').expect(200);
      expect(res.body).toEqual({ status: 'ok', campaigns: [], page: 4, limit: 5, total: 12 });
      const far = await api(app, listTenant).get('/management/campaigns?page=1000').expect(200);
      expect(far.body).toEqual({ status: 'ok', campaigns: [], page: 1000, limit: 10, total: 12 });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=-3', 'limit'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=abc', 'page'],
    ])('answers 400 validation for %s', async (query, field) => {
      const res = await api(app, listTenant).get(`/management/campaigns?${query}`);
      expect(expectError(res, 400, 'validation')).toContain(field);
    });
  });

  describe('GET /management/campaigns/:id and /management/external/campaigns/:permalink', () => {
    it('answers the same campaign by id and by permalink', async () => {
      const campaign = await create(tenant, { status: 'paused', opt_in_required: true });
      const byId = await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200);
      const byPermalink = await api(app, tenant).get(`/management/external/campaigns/${campaign.permalink}`).expect(200);
      expect(byId.body).toEqual({ status: 'ok', campaign });
      expect(byPermalink.body).toEqual({ status: 'ok', campaign });
    });

    it.each([
      ['an unknown id', '/management/campaigns/2000000000'],
      ['a non-numeric id', '/management/campaigns/abc'],
      ['id 0', '/management/campaigns/0'],
      ['a negative id', '/management/campaigns/-1'],
      ['a decimal id', '/management/campaigns/1.5'],
      ['an id of 2^31', '/management/campaigns/2147483648'],
      ['an id beyond 2^31', '/management/campaigns/99999999999'],
      ['an unknown permalink', '/management/external/campaigns/no-such-campaign'],
    ])('answers 404 not_found for %s', async (_label, path) => {
      expectError(await api(app, tenant).get(path), 404, 'not_found');
    });

    it('answers 404 not_found for a permalink in another case', async () => {
      const campaign = await create(tenant);
      expectError(await api(app, tenant).get(`/management/external/campaigns/${campaign.permalink.toUpperCase()}`), 404, 'not_found');
    });
  });

  describe('PUT /management/campaigns/:id and /management/external/campaigns/:permalink', () => {
    let divisionId: number;
    let prerequisite: CampaignView;

    /** A campaign with every optional member set, so that PUT can show they are kept. */
    async function createFull(): Promise<CampaignView> {
      return create(tenant, {
        permalink: `full-${++seq}-${run}`,
        status: 'draft',
        division_id: divisionId,
        opt_in_required: true,
        prerequisite_campaign_ids: [prerequisite.id],
        targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }],
      });
    }

    beforeAll(async () => {
      divisionId = await insertDivision(tenant, 'Updates');
      prerequisite = await create(tenant);
    });

    it('updates the four required members by id, keeps the others and moves updated_at', async () => {
      const campaign = await createFull();
      const name = uniqueName('Renamed');
      const res = await api(app, tenant)
        .put(`/management/campaigns/${campaign.id}`)
        .send({ campaign: { name, status: 'live', starts_at: '2026-04-01 09:00:00 +0200', ends_at: '2026-09-30T22:00:00.5Z' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ok',
        campaign: {
          ...campaign,
          name,
          status: 'live',
          starts_at: '2026-04-01T07:00:00.000Z',
          ends_at: '2026-09-30T22:00:00.500Z',
          updated_at: expect.stringMatching(ISO_UTC_MS),
        },
      });
      expect(Date.parse(res.body.campaign.updated_at)).toBeGreaterThan(Date.parse(campaign.updated_at));
      const read = await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200);
      expect(read.body.campaign).toEqual(res.body.campaign);
    });

    it('updates by permalink the same way', async () => {
      const campaign = await createFull();
      const res = await api(app, tenant)
        .put(`/management/external/campaigns/${campaign.permalink}`)
        .send(putBody(campaign, { status: 'inreview', ends_at: '2026-07-01T00:00:00Z' }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ok',
        campaign: { ...campaign, status: 'inreview', ends_at: '2026-07-01T00:00:00.000Z', updated_at: expect.stringMatching(ISO_UTC_MS) },
      });
      expect(Date.parse(res.body.campaign.updated_at)).toBeGreaterThan(Date.parse(campaign.updated_at));
      const read = await api(app, tenant).get(`/management/external/campaigns/${campaign.permalink}`).expect(200);
      expect(read.body.campaign).toEqual(res.body.campaign);
    });

    it('changes the optional members when they are sent', async () => {
      const campaign = await createFull();
      const other = await create(tenant);
      const targeting = [{ field: 'user.attributes.plan', op: 'eq', value: 'gold' }];
      const res = await api(app, tenant)
        .put(`/management/campaigns/${campaign.id}`)
        .send(
          putBody(campaign, {
            division_id: tenant.rootDivisionId,
            opt_in_required: false,
            prerequisite_campaign_ids: [other.id],
            targeting,
          }),
        )
        .expect(200);
      expect(res.body.campaign).toEqual({
        ...campaign,
        division_id: tenant.rootDivisionId,
        opt_in_required: false,
        prerequisite_campaign_ids: [other.id],
        targeting,
        updated_at: expect.stringMatching(ISO_UTC_MS),
      });
      const cleared = await api(app, tenant)
        .put(`/management/campaigns/${campaign.id}`)
        .send(putBody(campaign, { prerequisite_campaign_ids: [], targeting: [] }))
        .expect(200);
      expect(cleared.body.campaign).toEqual(expect.objectContaining({ prerequisite_campaign_ids: [], targeting: [], division_id: tenant.rootDivisionId }));
    });

    it('changes the permalink by id: the old one answers 404, the new one the campaign', async () => {
      const campaign = await createFull();
      const permalink = `moved-${++seq}-${run}`;
      const res = await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send(putBody(campaign, { permalink })).expect(200);
      expect(res.body.campaign).toEqual({ ...campaign, permalink, updated_at: expect.stringMatching(ISO_UTC_MS) });
      expectError(await api(app, tenant).get(`/management/external/campaigns/${campaign.permalink}`), 404, 'not_found');
      const read = await api(app, tenant).get(`/management/external/campaigns/${permalink}`).expect(200);
      expect(read.body.campaign).toEqual(res.body.campaign);
    });

    it('changes the permalink by permalink', async () => {
      const campaign = await createFull();
      const permalink = `moved-${++seq}-${run}`;
      const res = await api(app, tenant)
        .put(`/management/external/campaigns/${campaign.permalink}`)
        .send(putBody(campaign, { permalink }))
        .expect(200);
      expect(res.body.campaign).toEqual({ ...campaign, permalink, updated_at: expect.stringMatching(ISO_UTC_MS) });
      expectError(await api(app, tenant).get(`/management/external/campaigns/${campaign.permalink}`), 404, 'not_found');
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign.permalink).toBe(permalink);
    });

    it('keeps the permalink when the name changes', async () => {
      const campaign = await create(tenant);
      const res = await api(app, tenant)
        .put(`/management/campaigns/${campaign.id}`)
        .send(putBody(campaign, { name: uniqueName('Other name') }))
        .expect(200);
      expect(res.body.campaign.permalink).toBe(campaign.permalink);
    });

    it('accepts its own name in another case', async () => {
      const campaign = await create(tenant);
      const res = await api(app, tenant)
        .put(`/management/campaigns/${campaign.id}`)
        .send(putBody(campaign, { name: campaign.name.toUpperCase() }))
        .expect(200);
      expect(res.body.campaign.name).toBe(campaign.name.toUpperCase());
    });

    it.each(['name', 'status', 'starts_at', 'ends_at'])('answers 400 missing_data naming campaign.%s when it is absent, by id and by permalink', async (member) => {
      const campaign = await createFull();
      const body = putBody(campaign, { status: 'live', [member]: undefined });
      expect(expectError(await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send(body), 400, 'missing_data')).toEqual([
        `campaign.${member}`,
      ]);
      const byPermalink = await api(app, tenant).put(`/management/external/campaigns/${campaign.permalink}`).send(body);
      expect(expectError(byPermalink, 400, 'missing_data')).toEqual([`campaign.${member}`]);
      const read = await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200);
      expect(read.body.campaign).toEqual(campaign);
    });

    it('answers 400 missing_data naming all four for an empty campaign, and `campaign` without the wrapper', async () => {
      const campaign = await createFull();
      const empty = await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send({ campaign: {} });
      expect(expectError(empty, 400, 'missing_data').sort()).toEqual(['campaign.ends_at', 'campaign.name', 'campaign.starts_at', 'campaign.status']);
      const onlyOptional = await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send({ campaign: { opt_in_required: false } });
      expect(expectError(onlyOptional, 400, 'missing_data').sort()).toEqual(['campaign.ends_at', 'campaign.name', 'campaign.starts_at', 'campaign.status']);
      expect(expectError(await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send({}), 400, 'missing_data')).toEqual(['campaign']);
      const byPermalink = await api(app, tenant).put(`/management/external/campaigns/${campaign.permalink}`).send({});
      expect(expectError(byPermalink, 400, 'missing_data')).toEqual(['campaign']);
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign).toEqual(campaign);
    });

    it('rejects a prerequisite naming the campaign itself with 400 validation, by id and by permalink', async () => {
      const campaign = await createFull();
      const body = putBody(campaign, { prerequisite_campaign_ids: [prerequisite.id, campaign.id] });
      const res = await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send(body);
      expect(expectError(res, 400, 'validation')).toEqual(['campaign.prerequisite_campaign_ids']);
      const byPermalink = await api(app, tenant).put(`/management/external/campaigns/${campaign.permalink}`).send(body);
      expect(expectError(byPermalink, 400, 'validation')).toEqual(['campaign.prerequisite_campaign_ids']);
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign).toEqual(campaign);
    });

    it('rejects the name of another campaign (any case) with 400 validation and changes nothing', async () => {
      const campaign = await createFull();
      const other = await create(tenant);
      const res = await api(app, tenant)
        .put(`/management/campaigns/${campaign.id}`)
        .send(putBody(campaign, { name: other.name.toLowerCase(), status: 'live' }));
      expect(expectError(res, 400, 'validation')).toEqual(['campaign.name']);
      const byPermalink = await api(app, tenant)
        .put(`/management/external/campaigns/${campaign.permalink}`)
        .send(putBody(campaign, { name: other.name }));
      expect(expectError(byPermalink, 400, 'validation')).toEqual(['campaign.name']);
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign).toEqual(campaign);
    });

    it('rejects the permalink of another campaign with 400 validation and changes nothing', async () => {
      const campaign = await createFull();
      const other = await create(tenant);
      const res = await api(app, tenant)
        .put(`/management/campaigns/${campaign.id}`)
        .send(putBody(campaign, { permalink: other.permalink, status: 'live' }));
      expect(expectError(res, 400, 'validation')).toEqual(['campaign.permalink']);
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign).toEqual(campaign);
    });

    it.each([
      ['ends_at not after starts_at', { ends_at: STARTS }, 'campaign.ends_at'],
      ['a bad status', { status: 'archived' }, 'campaign.status'],
      ['a date that does not exist', { starts_at: '2026-02-30 10:00:00 +0200' }, 'campaign.starts_at'],
      ['a bad permalink', { permalink: 'Not A Permalink' }, 'campaign.permalink'],
      ['an empty name', { name: '' }, 'campaign.name'],
      ['a division of another organization', { division_id: OTHER_ROOT }, 'campaign.division_id'],
      ['an unknown prerequisite', { prerequisite_campaign_ids: [2_000_000_000] }, 'campaign.prerequisite_campaign_ids'],
      ['bad targeting', { targeting: [{ field: 'user.tier', op: 'in', value: 'Gold' }] }, 'campaign.targeting'],
      ['null targeting', { targeting: null }, 'campaign.targeting'],
      ['null opt_in_required', { opt_in_required: null }, 'campaign.opt_in_required'],
    ] as Array<[string, Record<string, unknown>, string]>)('rejects %s with 400 validation and changes nothing', async (_label, member, field) => {
      const campaign = await createFull();
      const overrides = member.division_id === OTHER_ROOT ? { division_id: otherTenant.rootDivisionId } : member;
      const res = await api(app, tenant).put(`/management/campaigns/${campaign.id}`).send(putBody(campaign, overrides));
      expect(expectError(res, 400, 'validation')).toContain(field);
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign).toEqual(campaign);
    });

    it('answers 400 argument_error for unknown members and changes nothing', async () => {
      const campaign = await createFull();
      const res = await api(app, tenant)
        .put(`/management/campaigns/${campaign.id}`)
        .send({ campaign: { ...putBody(campaign).campaign, id: 1, deleted_at: null } });
      expect(expectError(res, 400, 'argument_error').sort()).toEqual(['campaign.deleted_at', 'campaign.id']);
      const top = await api(app, tenant)
        .put(`/management/external/campaigns/${campaign.permalink}`)
        .send({ ...putBody(campaign), line_item: {} });
      expect(expectError(top, 400, 'argument_error')).toEqual(['line_item']);
      expect((await api(app, tenant).get(`/management/campaigns/${campaign.id}`).expect(200)).body.campaign).toEqual(campaign);
    });

    it.each([
      ['an unknown id', '/management/campaigns/2000000000'],
      ['a non-numeric id', '/management/campaigns/abc'],
      ['an id beyond 2^31', '/management/campaigns/4294967296'],
      ['an unknown permalink', '/management/external/campaigns/no-such-campaign'],
    ])('answers 404 not_found for %s', async (_label, path) => {
      const res = await api(app, tenant)
        .put(path)
        .send({ campaign: { name: uniqueName(), status: 'live', starts_at: STARTS, ends_at: ENDS } });
      expectError(res, 404, 'not_found');
    });
  });

  describe('DELETE /management/campaigns/:id and /management/external/campaigns/:permalink', () => {
    let deleteTenant: TestTenant;

    beforeAll(async () => {
      deleteTenant = await createTenant(app);
    });

    /** Checks a DELETE answer: the campaign as it was, its name with the marker, deleted_at; answers deleted_at. */
    function expectDeleted(res: Response, campaign: CampaignView): string {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'ok',
        campaign: {
          ...campaign,
          name: expect.stringMatching(new RegExp(`^${escapeRegExp(campaign.name)} \\[DELETED AT \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z\\]$`)),
          updated_at: expect.stringMatching(ISO_UTC_MS),
          deleted_at: expect.stringMatching(ISO_UTC_MS),
        },
      });
      const deletedAt = res.body.campaign.deleted_at as string;
      expect(res.body.campaign.name).toBe(`${campaign.name} [DELETED AT ${deletedAt}]`);
      expect(Date.parse(deletedAt)).toBeGreaterThanOrEqual(Date.parse(campaign.created_at));
      return deletedAt;
    }

    async function expectGone(owner: TestTenant, campaign: CampaignView) {
      expectError(await api(app, owner).get(`/management/campaigns/${campaign.id}`), 404, 'not_found');
      expectError(await api(app, owner).get(`/management/external/campaigns/${campaign.permalink}`), 404, 'not_found');
      expectError(await api(app, owner).get(`/management/campaigns/${campaign.id}/navigation`), 404, 'not_found');
      expectError(await api(app, owner).put(`/management/campaigns/${campaign.id}`).send(putBody(campaign)), 404, 'not_found');
      expectError(await api(app, owner).put(`/management/external/campaigns/${campaign.permalink}`).send(putBody(campaign)), 404, 'not_found');
      expectError(await api(app, owner).delete(`/management/campaigns/${campaign.id}`), 404, 'not_found');
      expectError(await api(app, owner).delete(`/management/external/campaigns/${campaign.permalink}`), 404, 'not_found');
      const list = await api(app, owner).get('/management/campaigns?limit=100').expect(200);
      expect(list.body.campaigns.map((c: CampaignView) => c.id)).not.toContain(campaign.id);
    }

    it('deletes by id: answers the marked campaign, then it is gone everywhere', async () => {
      const keep = await create(deleteTenant);
      const campaign = await create(deleteTenant);
      const before = await total(deleteTenant);
      expectDeleted(await api(app, deleteTenant).delete(`/management/campaigns/${campaign.id}`), campaign);
      await expectGone(deleteTenant, campaign);
      expect(await total(deleteTenant)).toBe(before - 1);
      expect((await api(app, deleteTenant).get(`/management/campaigns/${keep.id}`).expect(200)).body.campaign).toEqual(keep);
    });

    it('deletes by permalink the same way', async () => {
      const campaign = await create(deleteTenant, { permalink: `by-link-${++seq}` });
      const before = await total(deleteTenant);
      expectDeleted(await api(app, deleteTenant).delete(`/management/external/campaigns/${campaign.permalink}`), campaign);
      await expectGone(deleteTenant, campaign);
      expect(await total(deleteTenant)).toBe(before - 1);
    });

    it('answers 404 not_found to a second delete', async () => {
      const campaign = await create(deleteTenant);
      await api(app, deleteTenant).delete(`/management/campaigns/${campaign.id}`).expect(200);
      expectError(await api(app, deleteTenant).delete(`/management/campaigns/${campaign.id}`), 404, 'not_found');
      const other = await create(deleteTenant);
      await api(app, deleteTenant).delete(`/management/external/campaigns/${other.permalink}`).expect(200);
      expectError(await api(app, deleteTenant).delete(`/management/external/campaigns/${other.permalink}`), 404, 'not_found');
    });

    it('frees the name and the generated permalink for a new campaign', async () => {
      const campaign = await create(deleteTenant, { name: uniqueName('Reused') });
      await api(app, deleteTenant).delete(`/management/campaigns/${campaign.id}`).expect(200);
      const again = await create(deleteTenant, { name: campaign.name });
      expect(again.id).not.toBe(campaign.id);
      expect(again.name).toBe(campaign.name);
      expect(again.permalink).toBe(campaign.permalink);
      const read = await api(app, deleteTenant).get(`/management/external/campaigns/${campaign.permalink}`).expect(200);
      expect(read.body.campaign).toEqual(again);
    });

    it('frees an explicit permalink and the name (in any case) after a delete by permalink', async () => {
      const permalink = `explicit-${++seq}`;
      const campaign = await create(deleteTenant, { permalink });
      await api(app, deleteTenant).delete(`/management/external/campaigns/${permalink}`).expect(200);
      const again = await create(deleteTenant, { name: campaign.name.toUpperCase(), permalink });
      expect(again).toEqual(expect.objectContaining({ name: campaign.name.toUpperCase(), permalink }));
      expect(again.id).not.toBe(campaign.id);
    });

    it('lets an existing campaign take the name of a deleted one', async () => {
      const deleted = await create(deleteTenant);
      const existing = await create(deleteTenant);
      await api(app, deleteTenant).delete(`/management/campaigns/${deleted.id}`).expect(200);
      const res = await api(app, deleteTenant)
        .put(`/management/campaigns/${existing.id}`)
        .send(putBody(existing, { name: deleted.name, permalink: deleted.permalink }))
        .expect(200);
      expect(res.body.campaign).toEqual(expect.objectContaining({ id: existing.id, name: deleted.name, permalink: deleted.permalink }));
    });

    it('still accepts a PUT of the four required members of a campaign whose prerequisite was deleted', async () => {
      const prerequisite = await create(deleteTenant);
      const dependent = await create(deleteTenant, { prerequisite_campaign_ids: [prerequisite.id] });
      await api(app, deleteTenant).delete(`/management/campaigns/${prerequisite.id}`).expect(200);
      const res = await api(app, deleteTenant).put(`/management/campaigns/${dependent.id}`).send(putBody(dependent, { status: 'live' }));
      expect({ status: res.status, errors: res.body.errors ?? null }).toEqual({ status: 200, errors: null });
      expect(res.body.campaign).toEqual(expect.objectContaining({ id: dependent.id, status: 'live' }));
    });

    it('refuses a deleted campaign as a prerequisite with 400 validation', async () => {
      const deleted = await create(deleteTenant);
      await api(app, deleteTenant).delete(`/management/campaigns/${deleted.id}`).expect(200);
      const res = await api(app, deleteTenant)
        .post('/management/campaigns')
        .send({ campaign: campaignInput({ prerequisite_campaign_ids: [deleted.id] }) });
      expect(expectError(res, 400, 'validation')).toEqual(['campaign.prerequisite_campaign_ids']);
    });

    it.each([
      ['an unknown id', '/management/campaigns/2000000000'],
      ['a non-numeric id', '/management/campaigns/abc'],
      ['an id beyond 2^31', '/management/campaigns/2147483648'],
      ['an unknown permalink', '/management/external/campaigns/no-such-campaign'],
    ])('answers 404 not_found for %s', async (_label, path) => {
      expectError(await api(app, deleteTenant).delete(path), 404, 'not_found');
    });
  });

  describe('GET /management/campaigns/:id/navigation', () => {
    let applicationId: number;

    beforeAll(async () => {
      const rows: Array<{ id: number }> = await db.query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [
        tenant.organizationId,
      ]);
      applicationId = rows[0].id;
    });

    /** Rows as the line item, creative group and creative routes would have stored them. */
    function lineItem(campaignId: number, name: string, extra: Record<string, unknown> = {}) {
      return insertRow('line_items', {
        organization_id: tenant.organizationId,
        campaign_id: campaignId,
        name,
        status: 'live',
        starts_at: '2026-03-01T00:00:00Z',
        ends_at: '2026-06-01T00:00:00Z',
        ...extra,
      });
    }
    function creativeGroup(lineItemId: number, name: string, extra: Record<string, unknown> = {}) {
      return insertRow('creative_groups', {
        organization_id: tenant.organizationId,
        line_item_id: lineItemId,
        name,
        status: 'paused',
        starts_at: '2026-03-01 00:00:00+00',
        ends_at: '2026-05-01 00:00:00+00',
        ...extra,
      });
    }
    function creative(groupId: number, name: string, extra: Record<string, unknown> = {}) {
      return insertRow('creatives', {
        organization_id: tenant.organizationId,
        creative_group_id: groupId,
        application_id: applicationId,
        name,
        status: 'draft',
        ad_type: 'push_message',
        creative_type: 'messaging-platform-push',
        ...extra,
      });
    }

    it('answers the campaign with empty line_items when it has none', async () => {
      const campaign = await create(tenant, { status: 'live', starts_at: '2026-01-05 10:00:00 +0200' });
      const res = await api(app, tenant).get(`/management/campaigns/${campaign.id}/navigation`).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        campaign: { id: campaign.id, name: campaign.name, status: 'live', starts_at: '2026-01-05T08:00:00.000Z', ends_at: ENDS_OUT, line_items: [] },
      });
    });

    it('answers the hierarchy line item → creative groups → creatives, without deleted children', async () => {
      const campaign = await create(tenant);
      const li = await lineItem(campaign.id, 'Main');
      const g1 = await creativeGroup(li, 'Everyone');
      const g2 = await creativeGroup(li, 'VIPs', { status: 'live', starts_at: '2026-03-02T00:00:00Z', ends_at: '2026-03-03T12:30:00.250Z' });
      const goneGroup = await creativeGroup(li, 'Old group [DELETED AT 2026-01-01T00:00:00.000Z]', { deleted_at: '2026-01-01T00:00:00Z' });
      const c1 = await creative(g1, 'Welcome push', { status: 'live' });
      await creative(g2, 'Old creative [DELETED AT 2026-01-01T00:00:00.000Z]', { deleted_at: '2026-01-01T00:00:00Z' });
      await creative(goneGroup, 'Under a deleted group');
      const otherCampaign = await create(tenant);
      await creativeGroup(await lineItem(otherCampaign.id, 'Not mine'), 'Not mine either');

      const res = await api(app, tenant).get(`/management/campaigns/${campaign.id}/navigation`).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        campaign: {
          id: campaign.id,
          name: campaign.name,
          status: 'draft',
          starts_at: STARTS_OUT,
          ends_at: ENDS_OUT,
          line_items: [
            {
              id: li,
              name: 'Main',
              status: 'live',
              starts_at: STARTS_OUT,
              ends_at: ENDS_OUT,
              creative_groups: [
                {
                  id: g1,
                  name: 'Everyone',
                  status: 'paused',
                  starts_at: STARTS_OUT,
                  ends_at: '2026-05-01T00:00:00.000Z',
                  creatives: [{ id: c1, name: 'Welcome push', status: 'live' }],
                },
                { id: g2, name: 'VIPs', status: 'live', starts_at: '2026-03-02T00:00:00.000Z', ends_at: '2026-03-03T12:30:00.250Z', creatives: [] },
              ],
            },
          ],
        },
      });
    });

    it('answers the hierarchy built through the line item, creative group and creative routes', async () => {
      const campaign = await create(tenant, { status: 'live' });
      const lineItemRes = await api(app, tenant)
        .post(`/management/campaigns/${campaign.id}/line_items`)
        .send({ line_item: { name: 'Container', starts_at: STARTS, ends_at: ENDS, status: 'live' } });
      expect(lineItemRes.status).toBe(201);
      const lineItemId = lineItemRes.body.line_items[0].id as number;
      const groupRes = await api(app, tenant)
        .post(`/management/line_items/${lineItemId}/creative_groups`)
        .send({ creative_group: { name: 'Gold members', status: 'inreview', starts_at: '2026-03-01 01:00:00 +0100', ends_at: ENDS } });
      expect(groupRes.status).toBe(201);
      const groupId = groupRes.body.creative_groups[0].id as number;
      const creativeRes = await api(app, tenant)
        .post(`/management/creative_groups/${groupId}/creatives`)
        .send({
          creative: {
            name: 'Spring push',
            status: 'paused',
            ad_type: 'push_message',
            creative_type: 'messaging-platform-push',
            application_id: applicationId,
            issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: '2030-01-05T10:00:00Z' },
          },
        });
      expect(creativeRes.status).toBe(201);
      const creativeId = creativeRes.body.creatives[0].id as number;

      const res = await api(app, tenant).get(`/management/campaigns/${campaign.id}/navigation`).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        campaign: {
          id: campaign.id,
          name: campaign.name,
          status: 'live',
          starts_at: STARTS_OUT,
          ends_at: ENDS_OUT,
          line_items: [
            {
              id: lineItemId,
              name: 'Container',
              status: 'live',
              starts_at: STARTS_OUT,
              ends_at: ENDS_OUT,
              creative_groups: [
                {
                  id: groupId,
                  name: 'Gold members',
                  status: 'inreview',
                  starts_at: STARTS_OUT,
                  ends_at: ENDS_OUT,
                  creatives: [{ id: creativeId, name: 'Spring push', status: 'paused' }],
                },
              ],
            },
          ],
        },
      });

      expectError(await api(app, otherTenant).get(`/management/campaigns/${campaign.id}/navigation`), 404, 'not_found');
      await api(app, tenant).delete(`/management/campaigns/${campaign.id}`).expect(200);
      expectError(await api(app, tenant).get(`/management/line_items/${lineItemId}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/creative_groups/${groupId}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/creatives/${creativeId}`), 404, 'not_found');
    });

    it('leaves out a deleted line item', async () => {
      const campaign = await create(tenant);
      const old = await lineItem(campaign.id, 'Old [DELETED AT 2026-01-01T00:00:00.000Z]', { deleted_at: '2026-01-01T00:00:00Z' });
      await creativeGroup(old, 'Under a deleted line item');
      const res = await api(app, tenant).get(`/management/campaigns/${campaign.id}/navigation`).expect(200);
      expect(res.body.campaign.line_items).toEqual([]);
    });

    it('deleting the campaign marks its line item, creative groups and creatives deleted', async () => {
      const campaign = await create(tenant);
      const li = await lineItem(campaign.id, 'Cascade');
      const group = await creativeGroup(li, 'Cascade group');
      const cr = await creative(group, 'Cascade creative');
      const res = await api(app, tenant).delete(`/management/campaigns/${campaign.id}`).expect(200);
      const marker = ` [DELETED AT ${res.body.campaign.deleted_at}]`;
      const rows: Array<{ name: string; deleted: boolean }> = await db.query(
        `SELECT name, deleted_at IS NOT NULL AS deleted FROM line_items WHERE id = $1
         UNION ALL SELECT name, deleted_at IS NOT NULL FROM creative_groups WHERE id = $2
         UNION ALL SELECT name, deleted_at IS NOT NULL FROM creatives WHERE id = $3`,
        [li, group, cr],
      );
      expect(rows).toEqual([
        { name: `Cascade${marker}`, deleted: true },
        { name: `Cascade group${marker}`, deleted: true },
        { name: `Cascade creative${marker}`, deleted: true },
      ]);
    });

    it.each([
      ['an unknown id', '2000000000'],
      ['a non-numeric id', 'abc'],
      ['an id beyond 2^31', '2147483648'],
    ])('answers 404 not_found for %s', async (_label, id) => {
      expectError(await api(app, tenant).get(`/management/campaigns/${id}/navigation`), 404, 'not_found');
    });
  });

  describe('audit log', () => {
    let auditTenant: TestTenant;

    beforeAll(async () => {
      auditTenant = await createTenant(app);
    });

    it('records create, update and delete of a campaign with the api key, before and after, newest first', async () => {
      const created = await create(auditTenant, { targeting: [{ field: 'user.tags', op: 'contains', value: 'vip' }] });
      const updated = (
        await api(app, auditTenant)
          .put(`/management/campaigns/${created.id}`)
          .send(putBody(created, { status: 'live', name: uniqueName('Audited') }))
          .expect(200)
      ).body.campaign as CampaignView;
      const deleted = (await api(app, auditTenant).delete(`/management/campaigns/${created.id}`).expect(200)).body.campaign as CampaignView;

      const log = await auditLog(auditTenant);
      const entries = log.audit_log.filter((e) => e.object_type === 'campaign' && e.object_id === String(created.id));
      const common = { id: expect.any(String), object_type: 'campaign', object_id: String(created.id), api_key: auditTenant.apiKey, created_at: expect.stringMatching(ISO_UTC_MS) };
      expect(entries).toEqual([
        { ...common, action: 'delete', before: updated, after: deleted },
        { ...common, action: 'update', before: created, after: updated },
        { ...common, action: 'create', before: null, after: created },
      ]);
      expect(entries[0].after).toEqual(expect.objectContaining({ deleted_at: expect.stringMatching(ISO_UTC_MS) }));
    });

    it('records the api key that made the change when the organization has several', async () => {
      const campaign = await create(auditTenant);
      const res = await request(app.getHttpServer())
        .post(`/admin/v1/organizations/${auditTenant.organizationId}/applications`)
        .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
        .send({ application: { name: 'POS' } })
        .expect(201);
      const pos: TestTenant = { ...auditTenant, apiKey: res.body.api_key, apiSecret: res.body.api_secret };
      expect(pos.apiKey).not.toBe(auditTenant.apiKey);
      await api(app, pos).put(`/management/campaigns/${campaign.id}`).send(putBody(campaign, { status: 'paused' })).expect(200);
      const log = await auditLog(auditTenant);
      const entries = log.audit_log.filter((e) => e.object_type === 'campaign' && e.object_id === String(campaign.id));
      expect(entries.map((e) => [e.action, e.api_key])).toEqual([
        ['update', pos.apiKey],
        ['create', auditTenant.apiKey],
      ]);
    });

    it('records nothing for a rejected write', async () => {
      const campaign = await create(auditTenant);
      const before = (await auditLog(auditTenant, 'limit=1')).total;
      expectError(await api(app, auditTenant).post('/management/campaigns').send({ campaign: campaignInput({ status: 'bogus' }) }), 400, 'validation');
      expectError(
        await api(app, auditTenant).put(`/management/campaigns/${campaign.id}`).send(putBody(campaign, { name: campaign.name, ends_at: STARTS })),
        400,
        'validation',
      );
      expectError(await api(app, auditTenant).delete('/management/campaigns/2000000000'), 404, 'not_found');
      expect((await auditLog(auditTenant, 'limit=1')).total).toBe(before);
    });

    it("does not show one organization's changes to another", async () => {
      const campaign = await create(auditTenant);
      const log = await auditLog(otherTenant);
      expect(log.audit_log.filter((e) => e.object_type === 'campaign' && e.object_id === String(campaign.id))).toEqual([]);
    });
  });

  describe('organization isolation', () => {
    let owner: TestTenant;
    let intruder: TestTenant;
    let campaign: CampaignView;

    beforeAll(async () => {
      owner = await createTenant(app);
      intruder = await createTenant(app);
      campaign = await create(owner, { status: 'live', targeting: [{ field: 'user.tier', op: 'eq', value: 'Gold' }] });
    });

    it("never lets another organization read another's campaign", async () => {
      expectError(await api(app, intruder).get(`/management/campaigns/${campaign.id}`), 404, 'not_found');
      expectError(await api(app, intruder).get(`/management/external/campaigns/${campaign.permalink}`), 404, 'not_found');
      expectError(await api(app, intruder).get(`/management/campaigns/${campaign.id}/navigation`), 404, 'not_found');
      const list = await api(app, intruder).get('/management/campaigns?limit=100').expect(200);
      expect(list.body).toEqual({ status: 'ok', campaigns: [], page: 1, limit: 100, total: 0 });
    });

    it("never lets another organization change another's campaign", async () => {
      const body = putBody(campaign, { name: uniqueName('Hijacked'), status: 'paused', permalink: `hijacked-${++seq}` });
      expectError(await api(app, intruder).put(`/management/campaigns/${campaign.id}`).send(body), 404, 'not_found');
      expectError(await api(app, intruder).put(`/management/external/campaigns/${campaign.permalink}`).send(body), 404, 'not_found');
      const read = await api(app, owner).get(`/management/campaigns/${campaign.id}`).expect(200);
      expect(read.body.campaign).toEqual(campaign);
    });

    it("never lets another organization delete another's campaign", async () => {
      expectError(await api(app, intruder).delete(`/management/campaigns/${campaign.id}`), 404, 'not_found');
      expectError(await api(app, intruder).delete(`/management/external/campaigns/${campaign.permalink}`), 404, 'not_found');
      const read = await api(app, owner).get(`/management/external/campaigns/${campaign.permalink}`).expect(200);
      expect(read.body.campaign).toEqual(campaign);
    });

    it("does not confuse a permalink shared by two organizations", async () => {
      const mine = await create(intruder, { name: campaign.name, permalink: campaign.permalink });
      const res = await api(app, intruder)
        .put(`/management/external/campaigns/${campaign.permalink}`)
        .send(putBody(mine, { status: 'completed' }))
        .expect(200);
      expect(res.body.campaign.id).toBe(mine.id);
      await api(app, intruder).delete(`/management/external/campaigns/${campaign.permalink}`).expect(200);
      const read = await api(app, owner).get(`/management/external/campaigns/${campaign.permalink}`).expect(200);
      expect(read.body.campaign).toEqual(campaign);
    });

    it("cannot use another organization's campaign as a prerequisite on update", async () => {
      const mine = await create(intruder);
      const res = await api(app, intruder)
        .put(`/management/campaigns/${mine.id}`)
        .send(putBody(mine, { prerequisite_campaign_ids: [campaign.id] }));
      expect(expectError(res, 400, 'validation')).toEqual(['campaign.prerequisite_campaign_ids']);
    });
  });
});
