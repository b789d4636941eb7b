import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { expectErrorSorted as expectError } from './support/errors.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { createCampaign } from './factories/campaign.factory.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UNKNOWN_ID = 2_000_000_000;
const TEMPLATE_ID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const DAY = 86_400_000;

/** The response-only members of issue_audience_csv, as answered while nothing fills them. */
const RESPONSE_ONLY = {
  issue_offer_date: null,
  next_ad_type: null,
  offer_ids: [],
  orientation: null,
  portal_description: null,
  portal_icon: null,
  second_sn_audience_guid: null,
};

interface Chain {
  campaignId: number;
  lineItemId: number;
  groupId: number;
  behaviorId: number;
}

describe('creative groups and creatives', () => {
  let app: INestApplication;
  let db: DataSource;
  let tenant: TestTenant;
  let otherTenant: TestTenant;
  let applicationId: number;

  const group = (extra: Record<string, unknown> = {}) => ({
    name: 'Gold',
    status: 'live',
    starts_at: '2026-03-01T00:00:00Z',
    ends_at: '2026-06-01T00:00:00Z',
    ...extra,
  });

  const future = (days = 7) => new Date(Date.now() + days * DAY).toISOString();

  /** A triggered push creative for the chain's behavior; `extra` overrides members. */
  const creative = (chain: Chain, extra: Record<string, unknown> = {}) => ({
    name: 'Explorer push',
    status: 'live',
    ad_type: 'push_message',
    creative_type: 'messaging-platform-push',
    application_id: applicationId,
    issue_audience_csv: { delivery_method: 'triggered', behavior_id: chain.behaviorId },
    ...extra,
  });

  async function applicationOf(owner: TestTenant): Promise<number> {
    return (await db.query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [owner.organizationId]))[0].id;
  }

  /** A behavior of the campaign, inserted in the database (the behaviors API is not what this spec is about). */
  async function insertBehavior(owner: TestTenant, campaignId: number, deleted = false): Promise<number> {
    const rows: Array<{ id: number }> = await db.query(
      `INSERT INTO behaviors (organization_id, campaign_id, name, deleted_at) VALUES ($1, $2, $3, $4) RETURNING id`,
      [owner.organizationId, campaignId, `Behavior ${Date.now()}-${Math.random()}`, deleted ? new Date() : null],
    );
    return rows[0].id;
  }

  async function createGroup(owner: TestTenant, lineItemId: number, extra: Record<string, unknown> = {}) {
    const res = await api(app, owner).post(`/management/line_items/${lineItemId}/creative_groups`).send({ creative_group: group(extra) }).expect(201);
    return res.body.creative_groups[0] as { id: number; name: string; line_item_id: number; updated_at: string };
  }

  /** Campaign → line item → creative group, plus a behavior of the campaign. */
  async function createChain(owner: TestTenant = tenant): Promise<Chain> {
    const campaign = await createCampaign(app, owner);
    const lineItem = await api(app, owner)
      .post(`/management/campaigns/${campaign.id}/line_items`)
      .send({ line_item: { name: 'Main', status: 'live', starts_at: campaign.starts_at, ends_at: campaign.ends_at } })
      .expect(201);
    const lineItemId = lineItem.body.line_items[0].id as number;
    const created = await createGroup(owner, lineItemId);
    return { campaignId: campaign.id, lineItemId, groupId: created.id, behaviorId: await insertBehavior(owner, campaign.id) };
  }

  async function createCreative(owner: TestTenant, chain: Chain, extra: Record<string, unknown> = {}) {
    const body = { creative: { ...creative(chain, extra), application_id: extra.application_id ?? (await applicationOf(owner)) } };
    const res = await api(app, owner).post(`/management/creative_groups/${chain.groupId}/creatives`).send(body).expect(201);
    return res.body.creatives[0] as { id: number; name: string; updated_at: string };
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
    applicationId = await applicationOf(tenant);
  });
  afterAll(() => app.close());

  describe('POST /management/line_items/:line_item_id/creative_groups', () => {
    it('creates a group and answers 201 with every field', async () => {
      const chain = await createChain();
      const targeting = [{ field: 'user.tags', op: 'contains', value: 'vip' }, { field: 'user.attributes.plan', op: 'in', value: ['gold', 'silver'] }];
      const res = await api(app, tenant)
        .post(`/management/line_items/${chain.lineItemId}/creative_groups`)
        .send({ creative_group: group({ display_name: 'Gold members', targeting, starts_at: '2026-03-01 01:00:00 +0100' }) })
        .expect(201);
      expect(res.body).toEqual({
        status: 'ok',
        creative_groups: [
          {
            id: expect.any(Number),
            line_item_id: chain.lineItemId,
            name: 'Gold',
            display_name: 'Gold members',
            status: 'live',
            starts_at: '2026-03-01T00:00:00.000Z',
            ends_at: '2026-06-01T00:00:00.000Z',
            targeting,
            created_at: expect.stringMatching(ISO_UTC_MS),
            updated_at: expect.stringMatching(ISO_UTC_MS),
          },
        ],
      });
    });

    it('defaults display_name to null and targeting to [], and allows several groups in a line item', async () => {
      const chain = await createChain();
      const second = await createGroup(tenant, chain.lineItemId, { name: 'Silver' });
      expect(second).toEqual(expect.objectContaining({ display_name: null, targeting: [] }));
      const list = await api(app, tenant).get(`/management/line_items/${chain.lineItemId}/creative_groups`).expect(200);
      expect(list.body.creative_groups.map((g: { id: number }) => g.id)).toEqual([chain.groupId, second.id]);
    });

    it('answers 400 missing_data for the absent wrapper and for every absent required member', async () => {
      const chain = await createChain();
      const path = `/management/line_items/${chain.lineItemId}/creative_groups`;
      expect(expectError(await api(app, tenant).post(path).send({}), 400, 'missing_data')).toEqual(['creative_group']);
      expect(expectError(await api(app, tenant).post(path).send({ creative_group: { display_name: 'x' } }), 400, 'missing_data')).toEqual([
        'creative_group.ends_at',
        'creative_group.name',
        'creative_group.starts_at',
        'creative_group.status',
      ]);
    });

    it('answers 400 argument_error for unknown members', async () => {
      const chain = await createChain();
      const path = `/management/line_items/${chain.lineItemId}/creative_groups`;
      expect(expectError(await api(app, tenant).post(path).send({ creative_group: group({ weight: 2 }) }), 400, 'argument_error')).toEqual([
        'creative_group.weight',
      ]);
      expect(expectError(await api(app, tenant).post(path).send({ creative_group: group(), extra: 1 }), 400, 'argument_error')).toEqual(['extra']);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['an unknown status', { status: 'on' }, 'creative_group.status'],
      ['a bad starts_at', { starts_at: '2026-13-01T00:00:00Z' }, 'creative_group.starts_at'],
      ['ends_at before starts_at', { ends_at: '2026-01-01T00:00:00Z' }, 'creative_group.ends_at'],
      ['targeting on an unknown field', { targeting: [{ field: 'customer.tags', op: 'eq', value: 'vip' }] }, 'creative_group.targeting'],
      ['targeting with an unknown op', { targeting: [{ field: 'user.tier', op: 'like', value: 'G' }] }, 'creative_group.targeting'],
      ['targeting that is not an array', { targeting: { field: 'user.tier' } }, 'creative_group.targeting'],
      ['an empty name', { name: '' }, 'creative_group.name'],
      ['a numeric display_name', { display_name: 3 }, 'creative_group.display_name'],
    ])('answers 400 validation for %s and creates nothing', async (_case, extra, field) => {
      const chain = await createChain();
      const res = await api(app, tenant).post(`/management/line_items/${chain.lineItemId}/creative_groups`).send({ creative_group: group(extra) });
      expect(expectError(res, 400, 'validation')).toEqual([field]);
      const list = await api(app, tenant).get(`/management/line_items/${chain.lineItemId}/creative_groups`).expect(200);
      expect(list.body.creative_groups.map((g: { id: number }) => g.id)).toEqual([chain.groupId]);
    });

    it("answers 404 not_found for an unknown, deleted or another organization's line item, or one of a deleted campaign", async () => {
      const foreign = await createChain(otherTenant);
      const deleted = await createChain();
      await api(app, tenant).delete(`/management/line_items/${deleted.lineItemId}`).expect(200);
      const campaignGone = await createChain();
      await api(app, tenant).delete(`/management/campaigns/${campaignGone.campaignId}`).expect(200);
      for (const id of [UNKNOWN_ID, 'abc', foreign.lineItemId, deleted.lineItemId, campaignGone.lineItemId]) {
        const res = await api(app, tenant).post(`/management/line_items/${id}/creative_groups`).send({ creative_group: group() });
        expectError(res, 404, 'not_found');
      }
      const list = await api(app, otherTenant).get(`/management/line_items/${foreign.lineItemId}/creative_groups`).expect(200);
      expect(list.body.creative_groups).toHaveLength(1);
    });
  });

  describe('GET creative groups', () => {
    it('answers the group in a creative_groups array, by id and in the list, as POST answered it', async () => {
      const chain = await createChain();
      const created = await api(app, tenant)
        .post(`/management/line_items/${chain.lineItemId}/creative_groups`)
        .send({ creative_group: group({ name: 'Second', targeting: [{ field: 'user.tier', op: 'eq', value: 'Gold' }] }) })
        .expect(201);
      const one = await api(app, tenant).get(`/management/creative_groups/${created.body.creative_groups[0].id}`).expect(200);
      expect(one.body).toEqual({ status: 'ok', creative_groups: created.body.creative_groups });
      const list = await api(app, tenant).get(`/management/line_items/${chain.lineItemId}/creative_groups`).expect(200);
      expect(list.body.status).toBe('ok');
      expect(list.body.creative_groups[1]).toEqual(created.body.creative_groups[0]);
    });

    it('does not list a deleted group', async () => {
      const chain = await createChain();
      await api(app, tenant).delete(`/management/creative_groups/${chain.groupId}`).expect(200);
      const list = await api(app, tenant).get(`/management/line_items/${chain.lineItemId}/creative_groups`).expect(200);
      expect(list.body).toEqual({ status: 'ok', creative_groups: [] });
    });

    it("answers 404 not_found for an unknown, deleted or another organization's group or line item", async () => {
      const foreign = await createChain(otherTenant);
      const deleted = await createChain();
      await api(app, tenant).delete(`/management/line_items/${deleted.lineItemId}`).expect(200);
      for (const id of [UNKNOWN_ID, '0', foreign.groupId, deleted.groupId]) {
        expectError(await api(app, tenant).get(`/management/creative_groups/${id}`), 404, 'not_found');
      }
      for (const id of [UNKNOWN_ID, 'x', foreign.lineItemId, deleted.lineItemId]) {
        expectError(await api(app, tenant).get(`/management/line_items/${id}/creative_groups`), 404, 'not_found');
      }
    });
  });

  describe('PUT /management/creative_groups/:creative_group_id', () => {
    it('changes only the members sent and answers the new values', async () => {
      const chain = await createChain();
      const before = (await api(app, tenant).get(`/management/creative_groups/${chain.groupId}`).expect(200)).body.creative_groups[0];
      const targeting = [{ field: 'user.lifetime_points', op: 'gte', value: 100 }];
      const res = await api(app, tenant)
        .put(`/management/creative_groups/${chain.groupId}`)
        .send({ creative_group: { targeting, display_name: 'Big spenders', status: 'paused' } })
        .expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        creative_groups: [{ ...before, targeting, display_name: 'Big spenders', status: 'paused', updated_at: expect.stringMatching(ISO_UTC_MS) }],
      });
      const read = await api(app, tenant).get(`/management/creative_groups/${chain.groupId}`).expect(200);
      expect(read.body.creative_groups).toEqual(res.body.creative_groups);
    });

    it('changes name and dates, and clears targeting with []', async () => {
      const chain = await createChain();
      await api(app, tenant).put(`/management/creative_groups/${chain.groupId}`).send({ creative_group: { targeting: [{ field: 'user.tier', op: 'exists' }] } }).expect(200);
      const res = await api(app, tenant)
        .put(`/management/creative_groups/${chain.groupId}`)
        .send({ creative_group: { name: 'Renamed', starts_at: '2026-04-01T00:00:00Z', ends_at: '2026-05-01 00:00:00 +0000', targeting: [] } })
        .expect(200);
      expect(res.body.creative_groups[0]).toEqual(
        expect.objectContaining({ name: 'Renamed', starts_at: '2026-04-01T00:00:00.000Z', ends_at: '2026-05-01T00:00:00.000Z', targeting: [] }),
      );
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a new starts_at after the stored ends_at', { starts_at: '2026-07-01T00:00:00Z' }, 'creative_group.ends_at'],
      ['invalid targeting', { targeting: [{ field: 'user.tier', op: 'eq' }] }, 'creative_group.targeting'],
      ['an unknown status', { status: 'gone' }, 'creative_group.status'],
      ['a null name', { name: null }, 'creative_group.name'],
    ])('answers 400 validation for %s and keeps the group', async (_case, update, field) => {
      const chain = await createChain();
      const before = (await api(app, tenant).get(`/management/creative_groups/${chain.groupId}`).expect(200)).body;
      const res = await api(app, tenant).put(`/management/creative_groups/${chain.groupId}`).send({ creative_group: update });
      expect(expectError(res, 400, 'validation')).toEqual([field]);
      expect((await api(app, tenant).get(`/management/creative_groups/${chain.groupId}`).expect(200)).body).toEqual(before);
    });

    it('answers 400 missing_data without the wrapper and 400 argument_error for unknown members', async () => {
      const chain = await createChain();
      const path = `/management/creative_groups/${chain.groupId}`;
      expect(expectError(await api(app, tenant).put(path).send({}), 400, 'missing_data')).toEqual(['creative_group']);
      expect(expectError(await api(app, tenant).put(path).send({ creative_group: { line_item_id: 1 } }), 400, 'argument_error')).toEqual([
        'creative_group.line_item_id',
      ]);
    });

    it("answers 404 not_found for an unknown, deleted or another organization's group", async () => {
      const foreign = await createChain(otherTenant);
      const deleted = await createChain();
      await api(app, tenant).delete(`/management/creative_groups/${deleted.groupId}`).expect(200);
      for (const id of [UNKNOWN_ID, 'abc', foreign.groupId, deleted.groupId]) {
        expectError(await api(app, tenant).put(`/management/creative_groups/${id}`).send({ creative_group: { name: 'Hijack' } }), 404, 'not_found');
      }
      const read = await api(app, otherTenant).get(`/management/creative_groups/${foreign.groupId}`).expect(200);
      expect(read.body.creative_groups[0].name).toBe('Gold');
    });
  });

  describe('DELETE /management/creative_groups/:creative_group_id', () => {
    it('answers the removed group with the marker, cascades to its creative, and answers 404 afterwards', async () => {
      const chain = await createChain();
      const before = (await api(app, tenant).get(`/management/creative_groups/${chain.groupId}`).expect(200)).body.creative_groups[0];
      const made = await createCreative(tenant, chain);
      const res = await api(app, tenant).delete(`/management/creative_groups/${chain.groupId}`).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        creative_group: { ...before, name: expect.any(String), updated_at: expect.stringMatching(ISO_UTC_MS), deleted_at: expect.stringMatching(ISO_UTC_MS) },
      });
      expect(res.body.creative_group.name).toBe(`Gold [DELETED AT ${res.body.creative_group.deleted_at}]`);
      expectError(await api(app, tenant).get(`/management/creative_groups/${chain.groupId}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/creatives/${made.id}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/creative_groups/${chain.groupId}/creatives`), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/creative_groups/${chain.groupId}`), 404, 'not_found');
      const rows = await db.query(`SELECT name FROM creatives WHERE id = $1`, [made.id]);
      expect(rows[0].name).toBe(`Explorer push [DELETED AT ${res.body.creative_group.deleted_at}]`);
    });

    it("answers 404 not_found for an unknown or another organization's group and deletes nothing", async () => {
      const foreign = await createChain(otherTenant);
      for (const id of [UNKNOWN_ID, '99999999999', foreign.groupId]) {
        expectError(await api(app, tenant).delete(`/management/creative_groups/${id}`), 404, 'not_found');
      }
      await api(app, otherTenant).get(`/management/creative_groups/${foreign.groupId}`).expect(200);
    });
  });

  describe('POST /management/creative_groups/:creative_group_id/creatives', () => {
    it('creates a triggered creative and answers 201 with every field', async () => {
      const chain = await createChain();
      const res = await api(app, tenant)
        .post(`/management/creative_groups/${chain.groupId}/creatives`)
        .send({
          creative: creative(chain, {
            message: 'You earned the explorer badge!',
            url: 'https://example.com/rewards?x=1',
            payload: { screen: 'rewards', nested: { badge: 'explorer', levels: [1, 2] } },
            issue_audience_csv: { delivery_method: 'triggered', behavior_id: chain.behaviorId, template_id: TEMPLATE_ID },
          }),
        })
        .expect(201);
      expect(res.body).toEqual({
        status: 'ok',
        creatives: [
          {
            id: expect.any(Number),
            creative_group_id: chain.groupId,
            name: 'Explorer push',
            status: 'live',
            ad_type: 'push_message',
            creative_type: 'messaging-platform-push',
            application_id: applicationId,
            ssap_name: 'Push',
            message: 'You earned the explorer badge!',
            url: 'https://example.com/rewards?x=1',
            payload: { screen: 'rewards', nested: { badge: 'explorer', levels: [1, 2] } },
            issue_audience_csv: {
              delivery_method: 'triggered',
              scheduled_delivery_date: null,
              template_id: TEMPLATE_ID,
              behavior_id: chain.behaviorId,
              ...RESPONSE_ONLY,
              trigger_type: 'triggered',
            },
            created_at: expect.stringMatching(ISO_UTC_MS),
            updated_at: expect.stringMatching(ISO_UTC_MS),
          },
        ],
      });
      const rows = await db.query(`SELECT behavior_id FROM creatives WHERE id = $1`, [res.body.creatives[0].id]);
      expect(rows[0].behavior_id).toBe(chain.behaviorId);
    });

    it('creates a scheduled creative, storing the delivery date in ISO UTC, with message, url and payload null when absent', async () => {
      const chain = await createChain();
      const when = new Date(Date.now() + 3 * DAY);
      when.setUTCMilliseconds(0);
      const seedForm = `${when.toISOString().slice(0, 10)} ${when.toISOString().slice(11, 19)} +0000`;
      const res = await api(app, tenant)
        .post(`/management/creative_groups/${chain.groupId}/creatives`)
        .send({
          creative: creative(chain, {
            ad_type: 'email_message',
            creative_type: 'messaging-platform-email',
            issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: seedForm, template_id: TEMPLATE_ID },
          }),
        })
        .expect(201);
      expect(res.body.creatives[0]).toEqual(
        expect.objectContaining({
          ssap_name: 'Email',
          message: null,
          url: null,
          payload: null,
          issue_audience_csv: {
            delivery_method: 'scheduled',
            scheduled_delivery_date: when.toISOString(),
            template_id: TEMPLATE_ID,
            behavior_id: null,
            ...RESPONSE_ONLY,
            trigger_type: 'scheduled',
          },
        }),
      );
      const rows = await db.query(`SELECT behavior_id FROM creatives WHERE id = $1`, [res.body.creatives[0].id]);
      expect(rows[0].behavior_id).toBeNull();
    });

    it.each<[string, string, string]>([
      ['issue_audience_csv', 'issue-audience-csv', 'Email file export'],
      ['issue_audience_csv_no_msg', 'issue-audience-csv-no-msg', 'Audience file (no message)'],
      ['issue_bulk_offer', 'issue-bulk-offer', 'Bulk offer'],
      ['audience_export', 'audience-export-vendor1', 'Audience export (vendor 1)'],
      ['audience_export', 'audience-export-vendor2', 'Audience export (vendor 2)'],
      ['audience_export', 'audience-export-vendor3', 'Audience export (vendor 3)'],
      ['audience_export', 'audience-export-vendor4', 'Audience export (vendor 4)'],
      ['messaging_platform', 'messaging-platform-external', 'External messaging'],
      ['email_message', 'messaging-platform-email', 'Email'],
      ['push_message', 'messaging-platform-push', 'Push'],
    ])('accepts ad_type %s with creative_type %s (ssap_name %s)', async (adType, creativeType, ssapName) => {
      const chain = await createChain();
      const res = await api(app, tenant)
        .post(`/management/creative_groups/${chain.groupId}/creatives`)
        .send({ creative: creative(chain, { ad_type: adType, creative_type: creativeType }) })
        .expect(201);
      expect(res.body.creatives[0]).toEqual(expect.objectContaining({ ad_type: adType, creative_type: creativeType, ssap_name: ssapName }));
    });

    it('accepts another application of the same organization', async () => {
      const chain = await createChain();
      const added = await request(app.getHttpServer())
        .post(`/admin/v1/organizations/${tenant.organizationId}/applications`)
        .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
        .send({ application: { name: 'POS' } })
        .expect(201);
      const made = await createCreative(tenant, chain, { application_id: added.body.application.id });
      const read = await api(app, tenant).get(`/management/creatives/${made.id}`).expect(200);
      expect(read.body.creatives[0].application_id).toBe(added.body.application.id);
    });

    it('rejects a second creative in the group with 400 validation, and accepts one after the first is deleted', async () => {
      const chain = await createChain();
      const first = await createCreative(tenant, chain);
      const res = await api(app, tenant).post(`/management/creative_groups/${chain.groupId}/creatives`).send({ creative: creative(chain, { name: 'Second' }) });
      expect(expectError(res, 400, 'validation')).toEqual(['creative']);
      await api(app, tenant).delete(`/management/creatives/${first.id}`).expect(200);
      const again = await createCreative(tenant, chain);
      expect(again.name).toBe('Explorer push');
      const list = await api(app, tenant).get(`/management/creative_groups/${chain.groupId}/creatives`).expect(200);
      expect(list.body.creatives.map((c: { id: number }) => c.id)).toEqual([again.id]);
    });

    it('answers 400 missing_data for the absent wrapper and for every absent required member', async () => {
      const chain = await createChain();
      const path = `/management/creative_groups/${chain.groupId}/creatives`;
      expect(expectError(await api(app, tenant).post(path).send({}), 400, 'missing_data')).toEqual(['creative']);
      expect(expectError(await api(app, tenant).post(path).send({ creative: { message: 'hi' } }), 400, 'missing_data')).toEqual([
        'creative.ad_type',
        'creative.application_id',
        'creative.creative_type',
        'creative.issue_audience_csv',
        'creative.name',
        'creative.status',
      ]);
      const noMethod = await api(app, tenant).post(path).send({ creative: creative(chain, { issue_audience_csv: { template_id: TEMPLATE_ID } }) });
      expect(expectError(noMethod, 400, 'missing_data')).toEqual(['creative.issue_audience_csv.delivery_method']);
    });

    it('answers 400 missing_data for a triggered creative without behavior_id and a scheduled one without a date', async () => {
      const chain = await createChain();
      const path = `/management/creative_groups/${chain.groupId}/creatives`;
      const triggered = await api(app, tenant).post(path).send({ creative: creative(chain, { issue_audience_csv: { delivery_method: 'triggered' } }) });
      expect(expectError(triggered, 400, 'missing_data')).toEqual(['creative.issue_audience_csv.behavior_id']);
      const scheduled = await api(app, tenant).post(path).send({ creative: creative(chain, { issue_audience_csv: { delivery_method: 'scheduled' } }) });
      expect(expectError(scheduled, 400, 'missing_data')).toEqual(['creative.issue_audience_csv.scheduled_delivery_date']);
    });

    it('answers 400 argument_error for unknown members at every level', async () => {
      const chain = await createChain();
      const path = `/management/creative_groups/${chain.groupId}/creatives`;
      expect(expectError(await api(app, tenant).post(path).send({ creative: creative(chain), x: 1 }), 400, 'argument_error')).toEqual(['x']);
      expect(expectError(await api(app, tenant).post(path).send({ creative: creative(chain, { ssap_name: 'Push' }) }), 400, 'argument_error')).toEqual([
        'creative.ssap_name',
      ]);
      const inner = await api(app, tenant)
        .post(path)
        .send({ creative: creative(chain, { issue_audience_csv: { delivery_method: 'triggered', behavior_id: chain.behaviorId, trigger_type: 'triggered' } }) });
      expect(expectError(inner, 400, 'argument_error')).toEqual(['creative.issue_audience_csv.trigger_type']);
    });

    it.each<[string, (chain: Chain) => Record<string, unknown>, string]>([
      ['an unknown ad_type', () => ({ ad_type: 'sms_message' }), 'creative.ad_type'],
      ['an unknown creative_type', () => ({ creative_type: 'messaging-platform-sms' }), 'creative.creative_type'],
      ['a creative_type the ad_type does not allow', () => ({ ad_type: 'email_message', creative_type: 'messaging-platform-push' }), 'creative.creative_type'],
      ['a vendor export for issue_audience_csv', () => ({ ad_type: 'issue_audience_csv', creative_type: 'audience-export-vendor1' }), 'creative.creative_type'],
      ['an unknown status', () => ({ status: 'running' }), 'creative.status'],
      ['an unknown application', () => ({ application_id: UNKNOWN_ID }), 'creative.application_id'],
      ['a non-integer application_id', () => ({ application_id: '1' }), 'creative.application_id'],
      ['a url that is not http(s)', () => ({ url: 'ftp://example.com/file' }), 'creative.url'],
      ['a url that is not a URL', () => ({ url: 'not a url' }), 'creative.url'],
      ['a payload that is an array', () => ({ payload: [1, 2] }), 'creative.payload'],
      ['a payload that is a string', () => ({ payload: '{"a":1}' }), 'creative.payload'],
      ['a numeric message', () => ({ message: 42 }), 'creative.message'],
      ['an empty name', () => ({ name: '' }), 'creative.name'],
      ['an unknown delivery_method', (c) => ({ issue_audience_csv: { delivery_method: 'instant', behavior_id: c.behaviorId } }), 'creative.issue_audience_csv.delivery_method'],
      ['an empty template_id', (c) => ({ issue_audience_csv: { delivery_method: 'triggered', behavior_id: c.behaviorId, template_id: '' } }), 'creative.issue_audience_csv.template_id'],
      [
        'a template_id over 100 characters',
        (c) => ({ issue_audience_csv: { delivery_method: 'triggered', behavior_id: c.behaviorId, template_id: 'a'.repeat(101) } }),
        'creative.issue_audience_csv.template_id',
      ],
      ['an unknown behavior', () => ({ issue_audience_csv: { delivery_method: 'triggered', behavior_id: UNKNOWN_ID } }), 'creative.issue_audience_csv.behavior_id'],
      ['a non-integer behavior_id', () => ({ issue_audience_csv: { delivery_method: 'triggered', behavior_id: 'b1' } }), 'creative.issue_audience_csv.behavior_id'],
      [
        'a scheduled_delivery_date on a triggered creative',
        (c) => ({ issue_audience_csv: { delivery_method: 'triggered', behavior_id: c.behaviorId, scheduled_delivery_date: future() } }),
        'creative.issue_audience_csv.scheduled_delivery_date',
      ],
      [
        'a behavior_id on a scheduled creative',
        (c) => ({ issue_audience_csv: { delivery_method: 'scheduled', behavior_id: c.behaviorId, scheduled_delivery_date: future() } }),
        'creative.issue_audience_csv.behavior_id',
      ],
      [
        'a scheduled_delivery_date in the past',
        () => ({ issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: new Date(Date.now() - 60_000).toISOString() } }),
        'creative.issue_audience_csv.scheduled_delivery_date',
      ],
      [
        'a scheduled_delivery_date that is not a datetime',
        () => ({ issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: 'next week' } }),
        'creative.issue_audience_csv.scheduled_delivery_date',
      ],
      ['an issue_audience_csv that is not an object', () => ({ issue_audience_csv: 'triggered' }), 'creative.issue_audience_csv'],
    ])('answers 400 validation for %s and creates nothing', async (_case, extra, field) => {
      const chain = await createChain();
      const res = await api(app, tenant).post(`/management/creative_groups/${chain.groupId}/creatives`).send({ creative: creative(chain, extra(chain)) });
      expect(expectError(res, 400, 'validation')).toEqual([field]);
      const list = await api(app, tenant).get(`/management/creative_groups/${chain.groupId}/creatives`).expect(200);
      expect(list.body.creatives).toEqual([]);
    });

    it("answers 400 validation for an application of another organization, a behavior of another campaign, a deleted behavior and another organization's behavior", async () => {
      const chain = await createChain();
      const otherCampaign = await createChain();
      const foreign = await createChain(otherTenant);
      const deletedBehavior = await insertBehavior(tenant, chain.campaignId, true);
      const path = `/management/creative_groups/${chain.groupId}/creatives`;
      const app2 = await api(app, tenant).post(path).send({ creative: creative(chain, { application_id: await applicationOf(otherTenant) }) });
      expect(expectError(app2, 400, 'validation')).toEqual(['creative.application_id']);
      for (const behaviorId of [otherCampaign.behaviorId, deletedBehavior, foreign.behaviorId]) {
        const res = await api(app, tenant).post(path).send({ creative: creative(chain, { issue_audience_csv: { delivery_method: 'triggered', behavior_id: behaviorId } }) });
        expect(expectError(res, 400, 'validation')).toEqual(['creative.issue_audience_csv.behavior_id']);
      }
    });

    it("answers 404 not_found for an unknown, deleted or another organization's group, and a group of a deleted line item", async () => {
      const foreign = await createChain(otherTenant);
      const deleted = await createChain();
      await api(app, tenant).delete(`/management/creative_groups/${deleted.groupId}`).expect(200);
      const lineItemGone = await createChain();
      await api(app, tenant).delete(`/management/line_items/${lineItemGone.lineItemId}`).expect(200);
      for (const [id, chain] of [
        [UNKNOWN_ID, deleted],
        ['abc', deleted],
        [foreign.groupId, foreign],
        [deleted.groupId, deleted],
        [lineItemGone.groupId, lineItemGone],
      ] as Array<[number | string, Chain]>) {
        expectError(await api(app, tenant).post(`/management/creative_groups/${id}/creatives`).send({ creative: creative(chain) }), 404, 'not_found');
      }
      const list = await api(app, otherTenant).get(`/management/creative_groups/${foreign.groupId}/creatives`).expect(200);
      expect(list.body.creatives).toEqual([]);
    });
  });

  describe('GET creatives', () => {
    it('answers the creative in a creatives array, by id and in the group list, as POST answered it', async () => {
      const chain = await createChain();
      const created = await api(app, tenant)
        .post(`/management/creative_groups/${chain.groupId}/creatives`)
        .send({ creative: creative(chain, { message: 'Hi', payload: { a: 1 } }) })
        .expect(201);
      const one = await api(app, tenant).get(`/management/creatives/${created.body.creatives[0].id}`).expect(200);
      expect(one.body).toEqual({ status: 'ok', creatives: created.body.creatives });
      const list = await api(app, tenant).get(`/management/creative_groups/${chain.groupId}/creatives`).expect(200);
      expect(list.body).toEqual({ status: 'ok', creatives: created.body.creatives });
    });

    it('answers an empty list for a group without a creative', async () => {
      const chain = await createChain();
      const list = await api(app, tenant).get(`/management/creative_groups/${chain.groupId}/creatives`).expect(200);
      expect(list.body).toEqual({ status: 'ok', creatives: [] });
    });

    it("answers 404 not_found for an unknown, deleted or another organization's creative or group", async () => {
      const foreign = await createChain(otherTenant);
      const foreignCreative = await createCreative(otherTenant, foreign);
      const chain = await createChain();
      const deleted = await createCreative(tenant, chain);
      await api(app, tenant).delete(`/management/creatives/${deleted.id}`).expect(200);
      for (const id of [UNKNOWN_ID, 'abc', foreignCreative.id, deleted.id]) {
        expectError(await api(app, tenant).get(`/management/creatives/${id}`), 404, 'not_found');
      }
      for (const id of [UNKNOWN_ID, '1e3', foreign.groupId]) {
        expectError(await api(app, tenant).get(`/management/creative_groups/${id}/creatives`), 404, 'not_found');
      }
      await api(app, otherTenant).get(`/management/creatives/${foreignCreative.id}`).expect(200);
    });
  });

  describe('PUT /management/creatives/:creative_id', () => {
    it('changes only the members sent and answers the new values', async () => {
      const chain = await createChain();
      const made = await createCreative(tenant, chain, { message: 'Old', url: 'http://example.com/a' });
      const before = (await api(app, tenant).get(`/management/creatives/${made.id}`).expect(200)).body.creatives[0];
      const res = await api(app, tenant)
        .put(`/management/creatives/${made.id}`)
        .send({ creative: { name: 'Renamed', message: 'New', payload: { k: 'v' } } })
        .expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        creatives: [{ ...before, name: 'Renamed', message: 'New', payload: { k: 'v' }, updated_at: expect.stringMatching(ISO_UTC_MS) }],
      });
      expect((await api(app, tenant).get(`/management/creatives/${made.id}`).expect(200)).body.creatives).toEqual(res.body.creatives);
    });

    it('changes ad_type and creative_type together, status, url and application', async () => {
      const chain = await createChain();
      const made = await createCreative(tenant, chain);
      const res = await api(app, tenant)
        .put(`/management/creatives/${made.id}`)
        .send({ creative: { ad_type: 'messaging_platform', creative_type: 'messaging-platform-external', status: 'paused', url: 'https://x.test/y' } })
        .expect(200);
      expect(res.body.creatives[0]).toEqual(
        expect.objectContaining({ ad_type: 'messaging_platform', creative_type: 'messaging-platform-external', ssap_name: 'External messaging', status: 'paused', url: 'https://x.test/y' }),
      );
    });

    it('replaces the delivery settings as a whole: triggered to scheduled clears the behavior', async () => {
      const chain = await createChain();
      const made = await createCreative(tenant, chain, { issue_audience_csv: { delivery_method: 'triggered', behavior_id: chain.behaviorId, template_id: TEMPLATE_ID } });
      const when = future(2);
      const res = await api(app, tenant)
        .put(`/management/creatives/${made.id}`)
        .send({ creative: { issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: when } } })
        .expect(200);
      expect(res.body.creatives[0].issue_audience_csv).toEqual({
        delivery_method: 'scheduled',
        scheduled_delivery_date: when,
        template_id: null,
        behavior_id: null,
        ...RESPONSE_ONLY,
        trigger_type: 'scheduled',
      });
      expect((await db.query(`SELECT behavior_id FROM creatives WHERE id = $1`, [made.id]))[0].behavior_id).toBeNull();
      const back = await api(app, tenant)
        .put(`/management/creatives/${made.id}`)
        .send({ creative: { issue_audience_csv: { delivery_method: 'triggered', behavior_id: chain.behaviorId } } })
        .expect(200);
      expect(back.body.creatives[0].issue_audience_csv).toEqual(expect.objectContaining({ behavior_id: chain.behaviorId, trigger_type: 'triggered', scheduled_delivery_date: null }));
      expect((await db.query(`SELECT behavior_id FROM creatives WHERE id = $1`, [made.id]))[0].behavior_id).toBe(chain.behaviorId);
    });

    it.each<[string, (chain: Chain) => Record<string, unknown>, string]>([
      ['an ad_type that does not allow the stored creative_type', () => ({ ad_type: 'email_message' }), 'creative.creative_type'],
      ['a creative_type the stored ad_type does not allow', () => ({ creative_type: 'issue-bulk-offer' }), 'creative.creative_type'],
      ['an application of no organization', () => ({ application_id: UNKNOWN_ID }), 'creative.application_id'],
      ['a bad url', () => ({ url: 'javascript:alert(1)' }), 'creative.url'],
      ['a past scheduled date', () => ({ issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: '2020-01-01T00:00:00Z' } }), 'creative.issue_audience_csv.scheduled_delivery_date'],
      ['a behavior of another campaign', () => ({ issue_audience_csv: { delivery_method: 'triggered', behavior_id: UNKNOWN_ID } }), 'creative.issue_audience_csv.behavior_id'],
      ['a null message', () => ({ message: null }), 'creative.message'],
    ])('answers 400 validation for %s and keeps the creative', async (_case, update, field) => {
      const chain = await createChain();
      const made = await createCreative(tenant, chain);
      const before = (await api(app, tenant).get(`/management/creatives/${made.id}`).expect(200)).body;
      const res = await api(app, tenant).put(`/management/creatives/${made.id}`).send({ creative: update(chain) });
      expect(expectError(res, 400, 'validation')).toEqual([field]);
      expect((await api(app, tenant).get(`/management/creatives/${made.id}`).expect(200)).body).toEqual(before);
    });

    it('answers 400 validation for an application of another organization', async () => {
      const chain = await createChain();
      const made = await createCreative(tenant, chain);
      const res = await api(app, tenant).put(`/management/creatives/${made.id}`).send({ creative: { application_id: await applicationOf(otherTenant) } });
      expect(expectError(res, 400, 'validation')).toEqual(['creative.application_id']);
    });

    it('answers 400 missing_data without the wrapper or the delivery_method, and 400 argument_error for unknown members', async () => {
      const chain = await createChain();
      const made = await createCreative(tenant, chain);
      const path = `/management/creatives/${made.id}`;
      expect(expectError(await api(app, tenant).put(path).send({}), 400, 'missing_data')).toEqual(['creative']);
      expect(expectError(await api(app, tenant).put(path).send({ creative: { issue_audience_csv: { template_id: 'x' } } }), 400, 'missing_data')).toEqual([
        'creative.issue_audience_csv.delivery_method',
      ]);
      expect(expectError(await api(app, tenant).put(path).send({ creative: { creative_group_id: 1 } }), 400, 'argument_error')).toEqual([
        'creative.creative_group_id',
      ]);
    });

    it("answers 404 not_found for an unknown, deleted or another organization's creative", async () => {
      const foreign = await createChain(otherTenant);
      const foreignCreative = await createCreative(otherTenant, foreign);
      const chain = await createChain();
      const deleted = await createCreative(tenant, chain);
      await api(app, tenant).delete(`/management/creatives/${deleted.id}`).expect(200);
      for (const id of [UNKNOWN_ID, 'abc', foreignCreative.id, deleted.id]) {
        expectError(await api(app, tenant).put(`/management/creatives/${id}`).send({ creative: { name: 'Hijack' } }), 404, 'not_found');
      }
      expect((await api(app, otherTenant).get(`/management/creatives/${foreignCreative.id}`).expect(200)).body.creatives[0].name).toBe('Explorer push');
    });
  });

  describe('DELETE /management/creatives/:creative_id', () => {
    it('answers the removed creative with the marker in a creatives array and answers 404 afterwards', async () => {
      const chain = await createChain();
      const made = await createCreative(tenant, chain);
      const before = (await api(app, tenant).get(`/management/creatives/${made.id}`).expect(200)).body.creatives[0];
      const res = await api(app, tenant).delete(`/management/creatives/${made.id}`).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        creatives: [{ ...before, name: expect.any(String), updated_at: expect.stringMatching(ISO_UTC_MS), deleted_at: expect.stringMatching(ISO_UTC_MS) }],
      });
      expect(res.body.creatives[0].name).toBe(`Explorer push [DELETED AT ${res.body.creatives[0].deleted_at}]`);
      expectError(await api(app, tenant).get(`/management/creatives/${made.id}`), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/creatives/${made.id}`), 404, 'not_found');
      await api(app, tenant).get(`/management/creative_groups/${chain.groupId}`).expect(200);
    });

    it("answers 404 not_found for an unknown or another organization's creative and deletes nothing", async () => {
      const foreign = await createChain(otherTenant);
      const foreignCreative = await createCreative(otherTenant, foreign);
      for (const id of [UNKNOWN_ID, 'abc', foreignCreative.id]) {
        expectError(await api(app, tenant).delete(`/management/creatives/${id}`), 404, 'not_found');
      }
      await api(app, otherTenant).get(`/management/creatives/${foreignCreative.id}`).expect(200);
    });
  });

  describe('hierarchy, cascade and audit', () => {
    it('reads a campaign → line item → creative group → creative chain back through navigation', async () => {
      const chain = await createChain();
      const second = await createGroup(tenant, chain.lineItemId, { name: 'Silver', status: 'draft' });
      const made = await createCreative(tenant, chain, { status: 'paused' });
      const campaign = (await api(app, tenant).get(`/management/campaigns/${chain.campaignId}`).expect(200)).body.campaign;
      const lineItem = (await api(app, tenant).get(`/management/line_items/${chain.lineItemId}`).expect(200)).body.line_items[0];
      const res = await api(app, tenant).get(`/management/campaigns/${chain.campaignId}/navigation`).expect(200);
      expect(res.body).toEqual({
        status: 'ok',
        campaign: {
          id: chain.campaignId,
          name: campaign.name,
          status: 'live',
          starts_at: campaign.starts_at,
          ends_at: campaign.ends_at,
          line_items: [
            {
              id: chain.lineItemId,
              name: 'Main',
              status: 'live',
              starts_at: lineItem.starts_at,
              ends_at: lineItem.ends_at,
              creative_groups: [
                {
                  id: chain.groupId,
                  name: 'Gold',
                  status: 'live',
                  starts_at: '2026-03-01T00:00:00.000Z',
                  ends_at: '2026-06-01T00:00:00.000Z',
                  creatives: [{ id: made.id, name: 'Explorer push', status: 'paused' }],
                },
                { id: second.id, name: 'Silver', status: 'draft', starts_at: '2026-03-01T00:00:00.000Z', ends_at: '2026-06-01T00:00:00.000Z', creatives: [] },
              ],
            },
          ],
        },
      });
      await api(app, tenant).delete(`/management/creative_groups/${second.id}`).expect(200);
      await api(app, tenant).delete(`/management/creatives/${made.id}`).expect(200);
      const after = await api(app, tenant).get(`/management/campaigns/${chain.campaignId}/navigation`).expect(200);
      expect(after.body.campaign.line_items[0].creative_groups).toEqual([expect.objectContaining({ id: chain.groupId, creatives: [] })]);
    });

    it('deleting a line item makes its groups and creatives answer 404', async () => {
      const chain = await createChain();
      const made = await createCreative(tenant, chain);
      await api(app, tenant).delete(`/management/line_items/${chain.lineItemId}`).expect(200);
      expectError(await api(app, tenant).get(`/management/creative_groups/${chain.groupId}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/creatives/${made.id}`), 404, 'not_found');
      expectError(await api(app, tenant).put(`/management/creatives/${made.id}`).send({ creative: { name: 'x' } }), 404, 'not_found');
      expectError(await api(app, tenant).delete(`/management/creative_groups/${chain.groupId}`), 404, 'not_found');
    });

    it('deleting a campaign makes its line item, groups and creatives answer 404', async () => {
      const chain = await createChain();
      const made = await createCreative(tenant, chain);
      await api(app, tenant).delete(`/management/campaigns/${chain.campaignId}`).expect(200);
      expectError(await api(app, tenant).get(`/management/line_items/${chain.lineItemId}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/creative_groups/${chain.groupId}`), 404, 'not_found');
      expectError(await api(app, tenant).get(`/management/creatives/${made.id}`), 404, 'not_found');
    });

    it.each(['line item', 'campaign'])('leaves no live group or creative behind when creates race a %s delete', async (parent) => {
      for (let round = 0; round < 4; round += 1) {
        const chain = await createChain();
        const remove = parent === 'campaign' ? `/management/campaigns/${chain.campaignId}` : `/management/line_items/${chain.lineItemId}`;
        const requests = [
          api(app, tenant).post(`/management/creative_groups/${chain.groupId}/creatives`).send({ creative: creative(chain) }),
          api(app, tenant).post(`/management/line_items/${chain.lineItemId}/creative_groups`).send({ creative_group: group() }),
          api(app, tenant).delete(remove),
          api(app, tenant).post(`/management/line_items/${chain.lineItemId}/creative_groups`).send({ creative_group: group() }),
        ];
        const statuses = await Promise.all(requests.map((r) => r.then((res) => res.status)));
        expect(statuses[2]).toBe(200);
        for (const status of [statuses[0], statuses[1], statuses[3]]) expect([201, 404]).toContain(status);
        const live = await db.query(
          `SELECT g.id FROM creative_groups g WHERE g.line_item_id = $1 AND g.deleted_at IS NULL
           UNION ALL
           SELECT c.id FROM creatives c JOIN creative_groups g ON g.id = c.creative_group_id WHERE g.line_item_id = $1 AND c.deleted_at IS NULL`,
          [chain.lineItemId],
        );
        expect(live).toEqual([]);
      }
    });

    it('records every creative group and creative write in the audit log, with before and after', async () => {
      const owner = await createTenant(app);
      const chain = await createChain(owner);
      const groupBefore = (await api(app, owner).get(`/management/creative_groups/${chain.groupId}`).expect(200)).body.creative_groups[0];
      const groupUpdated = (await api(app, owner).put(`/management/creative_groups/${chain.groupId}`).send({ creative_group: { status: 'paused' } }).expect(200))
        .body.creative_groups[0];
      const made = (await api(app, owner).get(`/management/creatives/${(await createCreative(owner, chain)).id}`).expect(200)).body.creatives[0];
      const updated = (await api(app, owner).put(`/management/creatives/${made.id}`).send({ creative: { status: 'draft' } }).expect(200)).body.creatives[0];
      const deleted = (await api(app, owner).delete(`/management/creatives/${made.id}`).expect(200)).body.creatives[0];
      const groupDeleted = (await api(app, owner).delete(`/management/creative_groups/${chain.groupId}`).expect(200)).body.creative_group;
      expect(await auditEntries(owner, 'creative_group', chain.groupId)).toEqual([
        expect.objectContaining({ action: 'create', api_key: owner.apiKey, before: null, after: groupBefore }),
        expect.objectContaining({ action: 'update', before: groupBefore, after: groupUpdated }),
        expect.objectContaining({ action: 'delete', before: groupUpdated, after: groupDeleted }),
      ]);
      expect(await auditEntries(owner, 'creative', made.id)).toEqual([
        expect.objectContaining({ action: 'create', api_key: owner.apiKey, before: null, after: made }),
        expect.objectContaining({ action: 'update', before: made, after: updated }),
        expect.objectContaining({ action: 'delete', before: updated, after: deleted }),
      ]);
    });

    it('writes no audit entry for a rejected write', async () => {
      const owner = await createTenant(app);
      const chain = await createChain(owner);
      await createCreative(owner, chain);
      const count = async () => Number((await db.query(`SELECT count(*) AS n FROM audit_log WHERE organization_id = $1`, [owner.organizationId]))[0].n);
      const start = await count();
      const appId = await applicationOf(owner);
      await api(app, owner).post(`/management/creative_groups/${chain.groupId}/creatives`).send({ creative: { ...creative(chain), application_id: appId } }).expect(400);
      await api(app, owner).put(`/management/creative_groups/${chain.groupId}`).send({ creative_group: { ends_at: '2000-01-01T00:00:00Z' } }).expect(400);
      expect(await count()).toBe(start);
    });
  });
});
