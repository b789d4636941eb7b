import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectErrorSorted as expectError } from './support/errors.js';
import { createCampaign } from './factories/campaign.factory.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = 2_000_000_000;

/** The name a soft-deleted object answers with: the original plus ` [DELETED AT <ISO>]`. */
function deletedNamePattern(name: string): RegExp {
  return new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\[DELETED AT \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z\\]$`);
}

describe('line items', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let applicationId: number;

  const lineItem = (extra: Record<string, unknown> = {}) => ({
    name: 'Main',
    status: 'live',
    starts_at: '2026-03-01T00:00:00Z',
    ends_at: '2026-06-01T00:00:00Z',
    ...extra,
  });

  async function createLineItem(owner: TestTenant, campaignId: number, extra: Record<string, unknown> = {}) {
    const res = await api(app, owner).post(`/management/campaigns/${campaignId}/line_items`).send({ line_item: lineItem(extra) }).expect(201);
    return res.body.line_items[0] as { id: number; name: string; campaign_id: number; updated_at: string; created_at: string };
  }

  async function createGroup(lineItemId: number) {
    const res = await api(app, tenant)
      .post(`/management/line_items/${lineItemId}/creative_groups`)
      .send({ creative_group: { name: 'Everyone', status: 'live', starts_at: '2026-03-01T00:00:00Z', ends_at: '2026-06-01T00:00:00Z' } })
      .expect(201);
    return res.body.creative_groups[0] as { id: number; name: string };
  }

  async function createCreative(groupId: number) {
    const res = await api(app, tenant)
      .post(`/management/creative_groups/${groupId}/creatives`)
      .send({
        creative: {
          name: 'Export',
          status: 'live',
          ad_type: 'audience_export',
          creative_type: 'audience-export-vendor2',
          application_id: applicationId,
          issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: new Date(Date.now() + 86_400_000).toISOString() },
        },
      })
      .expect(201);
    return res.body.creatives[0] as { id: number; name: string };
  }

  async function auditEntries(owner: TestTenant, objectType: string, objectId: number) {
    const res = await api(app, owner).get('/management/audit_log?limit=100').expect(200);
    return (res.body.audit_log as Array<{ action: string; object_type: string; object_id: string; before: unknown; after: unknown; api_key: string }>)
      .filter((e) => e.object_type === objectType && e.object_id === String(objectId))
      .reverse();
  }

  beforeAll(async () => {
    app = await createTestApp();
    db = app.get(DataSource);
    tenant = await createTenant(app);
    otherTenant = await createTenant(app);
    applicationId = (await db.query(`SELECT id FROM applications WHERE organization_id = $1`, [tenant.organizationId]))[0].id;
  });
  afterAll(() => app.close());

  describe('POST /management/campaigns/:campaign_id/line_items', () => {
    it('creates the line item and answers 201 with every field, datetimes in ISO UTC with milliseconds', async () => {
      const campaign = await createCampaign(app, tenant);
      const res = await api(app, tenant)
        .post(`/management/campaigns/${campaign.id}/line_items`)
        .send({
          line_item: lineItem({
            starts_at: '2026-03-01 10:00:00 +0200',
            ends_at: '2026-06-01T10:00:00.500+02:00',
            display_name: 'Spring container',
            description: 'All spring messages',
          }),
        })
        .expect(201);
      expect(res.body).toEqual({
        status: 'ok',
        line_items: [
          {
            id: expect.any(Number),
            campaign_id: campaign.id,
            name: 'Main',
            display_name: 'Spring container',
            description: 'All spring messages',
            status: 'live',
            starts_at: '2026-03-01T08:00:00.000Z',
            ends_at: '2026-06-01T08:00:00.500Z',
            created_at: expect.stringMatching(ISO_UTC_MS),
            updated_at: expect.stringMatching(ISO_UTC_MS),
          },
        ],
      });
    });

    it('answers display_name and description as null when absent', async () => {
      const campaign = await createCampaign(app, tenant);
      const created = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem() }).expect(201);
      expect(created.body.line_items[0]).toEqual(expect.objectContaining({ display_name: null, description: null }));
    });

    it.each(['draft', 'inreview', 'live', 'paused', 'completed'])('accepts status %s', async (status) => {
      const campaign = await createCampaign(app, tenant);
      expect((await createLineItem(tenant, campaign.id, { status })).campaign_id).toBe(campaign.id);
    });

    it('rejects a second line item in the campaign with 400 validation and keeps one', async () => {
      const campaign = await createCampaign(app, tenant);
      await createLineItem(tenant, campaign.id);
      const res = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem({ name: 'Second' }) });
      expect(expectError(res, 400, 'validation')).toEqual(['line_item']);
      const list = await api(app, tenant).get(`/management/campaigns/${campaign.id}/line_items`).expect(200);
      expect(list.body.line_items.map((l: { name: string }) => l.name)).toEqual(['Main']);
    });

    it('allows a new line item (with the same name) once the previous one is deleted', async () => {
      const campaign = await createCampaign(app, tenant);
      const first = await createLineItem(tenant, campaign.id);
      await api(app, tenant).delete(`/management/line_items/${first.id}`).expect(200);
      const second = await createLineItem(tenant, campaign.id);
      expect(second.name).toBe('Main');
      expect(second.id).not.toBe(first.id);
    });

    it('answers 400 missing_data naming `line_item` when the wrapper is absent', async () => {
      const campaign = await createCampaign(app, tenant);
      const res = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({});
      expect(expectError(res, 400, 'missing_data')).toEqual(['line_item']);
    });

    it('answers 400 missing_data naming every absent required member', async () => {
      const campaign = await createCampaign(app, tenant);
      const res = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: { display_name: 'x' } });
      expect(expectError(res, 400, 'missing_data')).toEqual(['line_item.ends_at', 'line_item.name', 'line_item.starts_at', 'line_item.status']);
    });

    it('answers 400 missing_data for a required member sent as null', async () => {
      const campaign = await createCampaign(app, tenant);
      const res = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem({ name: null }) });
      expect(expectError(res, 400, 'missing_data')).toEqual(['line_item.name']);
    });

    it('answers 400 argument_error for unknown members, inside and beside the wrapper, and creates nothing', async () => {
      const campaign = await createCampaign(app, tenant);
      const inside = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem({ priority: 1 }) });
      expect(expectError(inside, 400, 'argument_error')).toEqual(['line_item.priority']);
      const beside = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem(), force: true });
      expect(expectError(beside, 400, 'argument_error')).toEqual(['force']);
      const list = await api(app, tenant).get(`/management/campaigns/${campaign.id}/line_items`).expect(200);
      expect(list.body.line_items).toEqual([]);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['an unknown status', { status: 'active' }, 'line_item.status'],
      ['an invalid starts_at', { starts_at: '2026-02-30T00:00:00Z' }, 'line_item.starts_at'],
      ['a non-date ends_at', { ends_at: 'tomorrow' }, 'line_item.ends_at'],
      ['ends_at before starts_at', { starts_at: '2026-06-01T00:00:00Z', ends_at: '2026-03-01T00:00:00Z' }, 'line_item.ends_at'],
      ['ends_at equal to starts_at', { starts_at: '2026-06-01T00:00:00Z', ends_at: '2026-06-01T02:00:00+02:00' }, 'line_item.ends_at'],
      ['an empty name', { name: '' }, 'line_item.name'],
      ['a numeric name', { name: 12 }, 'line_item.name'],
      ['a null display_name', { display_name: null }, 'line_item.display_name'],
      ['a numeric description', { description: 5 }, 'line_item.description'],
    ])('answers 400 validation for %s and creates nothing', async (_case, extra, field) => {
      const campaign = await createCampaign(app, tenant);
      const res = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem(extra) });
      expect(expectError(res, 400, 'validation')).toEqual([field]);
      const list = await api(app, tenant).get(`/management/campaigns/${campaign.id}/line_items`).expect(200);
      expect(list.body.line_items).toEqual([]);
    });

    it('answers 404 not_found for an unknown campaign, a non-numeric id, a deleted campaign and another organization\'s campaign', async () => {
      const deleted = await createCampaign(app, tenant);
      await api(app, tenant).delete(`/management/campaigns/${deleted.id}`).expect(200);
      const foreign = await createCampaign(app, otherTenant);
      for (const id of [UNKNOWN_ID, 'abc', deleted.id, foreign.id]) {
        const res = await api(app, tenant).post(`/management/campaigns/${id}/line_items`).send({ line_item: lineItem() });
        expectError(res, 404, 'not_found');
      }
      const list = await api(app, otherTenant).get(`/management/campaigns/${foreign.id}/line_items`).expect(200);
      expect(list.body.line_items).toEqual([]);
    });
  });

  describe('GET /management/campaigns/:campaign_id/line_items', () => {
    it('answers an empty list for a campaign without a line item', async () => {
      const campaign = await createCampaign(app, tenant);
      const res = await api(app, tenant).get(`/management/campaigns/${campaign.id}/line_items`).expect(200);
      expect(res.body).toEqual({ status: 'ok', line_items: [] });
    });

    it('lists the line item as POST answered it, and no deleted one', async () => {
      const campaign = await createCampaign(app, tenant);
      const old = await createLineItem(tenant, campaign.id, { name: 'Old' });
      await api(app, tenant).delete(`/management/line_items/${old.id}`).expect(200);
      const created = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem() }).expect(201);
      const res = await api(app, tenant).get(`/management/campaigns/${campaign.id}/line_items`).expect(200);
      expect(res.body).toEqual({ status: 'ok', line_items: created.body.line_items });
    });

    it("answers 404 not_found for an unknown, deleted or another organization's campaign", async () => {
      const deleted = await createCampaign(app, tenant);
      await createLineItem(tenant, deleted.id);
      await api(app, tenant).delete(`/management/campaigns/${deleted.id}`).expect(200);
      const foreign = await createCampaign(app, otherTenant);
      await createLineItem(otherTenant, foreign.id);
      for (const id of [UNKNOWN_ID, 'x1', deleted.id, foreign.id]) {
        expectError(await api(app, tenant).get(`/management/campaigns/${id}/line_items`), 404, 'not_found');
      }
    });
  });

  describe('GET /management/line_items/:line_item_id', () => {
    it('answers the line item in a line_items array, as POST answered it', async () => {
      const campaign = await createCampaign(app, tenant);
      const created = await api(app, tenant)
        .post(`/management/campaigns/${campaign.id}/line_items`)
        .send({ line_item: lineItem({ display_name: 'D' }) })
        .expect(201);
      const res = await api(app, tenant).get(`/management/line_items/${created.body.line_items[0].id}`).expect(200);
      expect(res.body).toEqual({ status: 'ok', line_items: created.body.line_items });
    });

    it("answers 404 not_found for an unknown id, a non-numeric id, another organization's line item and a deleted one", async () => {
      const foreign = await createLineItem(otherTenant, (await createCampaign(app, otherTenant)).id);
      const deleted = await createLineItem(tenant, (await createCampaign(app, tenant)).id);
      await api(app, tenant).delete(`/management/line_items/${deleted.id}`).expect(200);
      for (const id of [UNKNOWN_ID, '1.5', foreign.id, deleted.id]) {
        expectError(await api(app, tenant).get(`/management/line_items/${id}`), 404, 'not_found');
      }
      await api(app, otherTenant).get(`/management/line_items/${foreign.id}`).expect(200);
    });

    it('answers 404 not_found for the line item of a deleted campaign', async () => {
      const campaign = await createCampaign(app, tenant);
      const created = await createLineItem(tenant, campaign.id);
      await api(app, tenant).delete(`/management/campaigns/${campaign.id}`).expect(200);
      expectError(await api(app, tenant).get(`/management/line_items/${created.id}`), 404, 'not_found');
    });
  });

  describe('PUT /management/line_items/:line_item_id', () => {
    it('changes only the members sent and answers the new values', async () => {
      const campaign = await createCampaign(app, tenant);
      const created = await api(app, tenant)
        .post(`/management/campaigns/${campaign.id}/line_items`)
        .send({ line_item: lineItem({ display_name: 'D', description: 'Desc' }) })
        .expect(201);
      const before = created.body.line_items[0];
      const res = await api(app, tenant).put(`/management/line_items/${before.id}`).send({ line_item: { name: 'Renamed', status: 'paused' } }).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        line_items: [{ ...before, name: 'Renamed', status: 'paused', updated_at: expect.stringMatching(ISO_UTC_MS) }],
      });
      expect(Date.parse(res.body.line_items[0].updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
      const read = await api(app, tenant).get(`/management/line_items/${before.id}`).expect(200);
      expect(read.body.line_items).toEqual(res.body.line_items);
    });

    it('changes every member at once', async () => {
      const item = await createLineItem(tenant, (await createCampaign(app, tenant)).id);
      const update = {
        name: 'All',
        status: 'completed',
        starts_at: '2027-01-01 00:00:00 +0000',
        ends_at: '2027-02-01T00:00:00Z',
        display_name: 'New display',
        description: 'New description',
      };
      const res = await api(app, tenant).put(`/management/line_items/${item.id}`).send({ line_item: update }).expect(200);
      expect(res.body.line_items[0]).toEqual(
        expect.objectContaining({ ...update, starts_at: '2027-01-01T00:00:00.000Z', ends_at: '2027-02-01T00:00:00.000Z', id: item.id }),
      );
    });

    it('accepts an empty line_item and changes nothing', async () => {
      const campaign = await createCampaign(app, tenant);
      const created = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem() }).expect(201);
      const res = await api(app, tenant).put(`/management/line_items/${created.body.line_items[0].id}`).send({ line_item: {} }).expect(200);
      expect(res.body.line_items[0]).toEqual({ ...created.body.line_items[0], updated_at: expect.stringMatching(ISO_UTC_MS) });
    });

    it('checks a new ends_at against the stored starts_at (400 validation) and keeps the line item', async () => {
      const item = await createLineItem(tenant, (await createCampaign(app, tenant)).id);
      const res = await api(app, tenant).put(`/management/line_items/${item.id}`).send({ line_item: { ends_at: '2026-02-01T00:00:00Z' } });
      expect(expectError(res, 400, 'validation')).toEqual(['line_item.ends_at']);
      const read = await api(app, tenant).get(`/management/line_items/${item.id}`).expect(200);
      expect(read.body.line_items[0].ends_at).toBe('2026-06-01T00:00:00.000Z');
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['an unknown status', { status: 'archived' }, 'line_item.status'],
      ['a bad starts_at', { starts_at: '01/03/2026' }, 'line_item.starts_at'],
      ['an empty name', { name: '' }, 'line_item.name'],
      ['a null name', { name: null }, 'line_item.name'],
    ])('answers 400 validation for %s', async (_case, update, field) => {
      const item = await createLineItem(tenant, (await createCampaign(app, tenant)).id);
      const res = await api(app, tenant).put(`/management/line_items/${item.id}`).send({ line_item: update });
      expect(expectError(res, 400, 'validation')).toEqual([field]);
    });

    it('answers 400 missing_data without the wrapper (even beside unknown members) and 400 argument_error for unknown members', async () => {
      const item = await createLineItem(tenant, (await createCampaign(app, tenant)).id);
      expect(expectError(await api(app, tenant).put(`/management/line_items/${item.id}`).send({ name: 'x' }), 400, 'missing_data')).toEqual(['line_item']);
      expect(expectError(await api(app, tenant).put(`/management/line_items/${item.id}`).send({}), 400, 'missing_data')).toEqual(['line_item']);
      const unknown = await api(app, tenant).put(`/management/line_items/${item.id}`).send({ line_item: { campaign_id: 3 } });
      expect(expectError(unknown, 400, 'argument_error')).toEqual(['line_item.campaign_id']);
    });

    it("answers 404 not_found for an unknown, deleted or another organization's line item and changes nothing", async () => {
      const foreign = await createLineItem(otherTenant, (await createCampaign(app, otherTenant)).id);
      const deleted = await createLineItem(tenant, (await createCampaign(app, tenant)).id);
      await api(app, tenant).delete(`/management/line_items/${deleted.id}`).expect(200);
      for (const id of [UNKNOWN_ID, 'abc', foreign.id, deleted.id]) {
        expectError(await api(app, tenant).put(`/management/line_items/${id}`).send({ line_item: { name: 'Hijack' } }), 404, 'not_found');
      }
      const read = await api(app, otherTenant).get(`/management/line_items/${foreign.id}`).expect(200);
      expect(read.body.line_items[0].name).toBe('Main');
    });
  });

  describe('DELETE /management/line_items/:line_item_id', () => {
    it('answers the removed line item with the [DELETED AT ...] marker and answers 404 afterwards', async () => {
      const campaign = await createCampaign(app, tenant);
      const created = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem() }).expect(201);
      const before = created.body.line_items[0];
      const res = await api(app, tenant).delete(`/management/line_items/${before.id}`).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        line_item: {
          ...before,
          name: expect.stringMatching(deletedNamePattern('Main')),
          updated_at: expect.stringMatching(ISO_UTC_MS),
          deleted_at: expect.stringMatching(ISO_UTC_MS),
        },
      });
      expect(res.body.line_item.name).toBe(`Main [DELETED AT ${res.body.line_item.deleted_at}]`);
      expectError(await api(app, tenant).get(`/management/line_items/${before.id}`), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/line_items/${before.id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/management/line_items/${before.id}`).send({ line_item: {} }), 404, 'not_found');
    });

    it('cascades to its creative groups and creatives: they answer 404 and keep their rows with the marker', async () => {
      const campaign = await createCampaign(app, tenant);
      const item = await createLineItem(tenant, campaign.id);
      const groups = [await createGroup(item.id), await createGroup(item.id)];
      const creative = await createCreative(groups[0].id);
      const res = await api(app, tenant).delete(`/management/line_items/${item.id}`).expect(200);
      for (const group of groups) {
        expectError(await api(app, tenant).get(`/management/creative_groups/${group.id}`), 404, 'not_found');
        expectError(await api(app, tenant).get(`/management/creative_groups/${group.id}/creatives`), 404, 'not_found');
      }
      expectError(await api(app, tenant).get(`/management/creatives/${creative.id}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/line_items/${item.id}/creative_groups`), 404, 'not_found');
      const marker = ` [DELETED AT ${res.body.line_item.deleted_at}]`;
      const rows: Array<{ name: string; deleted_at: Date }> = await db.query(
        `SELECT name, deleted_at FROM creative_groups WHERE line_item_id = $1 UNION ALL SELECT name, deleted_at FROM creatives WHERE id = $2`,
        [item.id, creative.id],
      );
      expect(rows.map((r) => r.name).sort()).toEqual([`Everyone${marker}`, `Everyone${marker}`, `Export${marker}`]);
      for (const row of rows) expect(row.deleted_at.toISOString()).toBe(res.body.line_item.deleted_at);
      const navigation = await api(app, tenant).get(`/management/campaigns/${campaign.id}/navigation`).expect(200);
      expect(navigation.body.campaign.line_items).toEqual([]);
    });

    it("answers 404 not_found for an unknown or another organization's line item and deletes nothing", async () => {
      const foreign = await createLineItem(otherTenant, (await createCampaign(app, otherTenant)).id);
      for (const id of [UNKNOWN_ID, '-1', foreign.id]) {
        expectError(await api(app, tenant).delete(`/management/line_items/${id}`), 404, 'not_found');
      }
      await api(app, otherTenant).get(`/management/line_items/${foreign.id}`).expect(200);
    });
  });

  describe('audit log', () => {
    it('records create, update and delete with the api key, before and after', async () => {
      const owner = await createTenant(app);
      const item = await createLineItem(owner, (await createCampaign(app, owner)).id);
      const updated = await api(app, owner).put(`/management/line_items/${item.id}`).send({ line_item: { status: 'paused' } }).expect(200);
      const deleted = await api(app, owner).delete(`/management/line_items/${item.id}`).expect(200);
      const entries = await auditEntries(owner, 'line_item', item.id);
      expect(entries).toEqual([
        expect.objectContaining({ action: 'create', api_key: owner.apiKey, before: null, after: item }),
        expect.objectContaining({ action: 'update', api_key: owner.apiKey, before: item, after: updated.body.line_items[0] }),
        expect.objectContaining({ action: 'delete', api_key: owner.apiKey, before: updated.body.line_items[0], after: deleted.body.line_item }),
      ]);
      expect(await auditEntries(tenant, 'line_item', item.id)).toEqual([]);
    });

    it('bumps the rules version of the organization on every write, and not on a rejected one', async () => {
      const owner = await createTenant(app);
      const version = async () => Number((await db.query(`SELECT rules_version FROM organizations WHERE id = $1`, [owner.organizationId]))[0].rules_version);
      const campaign = await createCampaign(app, owner);
      const start = await version();
      const item = await createLineItem(owner, campaign.id);
      expect(await version()).toBe(start + 1);
      await api(app, owner).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: lineItem() }).expect(400);
      expect(await version()).toBe(start + 1);
      await api(app, owner).put(`/management/line_items/${item.id}`).send({ line_item: { name: 'N' } }).expect(200);
      await api(app, owner).delete(`/management/line_items/${item.id}`).expect(200);
      expect(await version()).toBe(start + 3);
    });
  });
});
