import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { RulesCacheService } from '../src/modules/campaigns/rules/rules-cache.service.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createTestApp } from './support/app.js';

/**
 * Two application instances on one database stand for two API processes: a change made through one is seen by the
 * other's compiled rules on its next read, with nothing shared in memory.
 */
describe('compiled rules refresh across processes', () => {
  let writer: INestApplication;
  let reader: INestApplication;
  let tenant: TestTenant;

  beforeAll(async () => {
    [writer, reader] = await Promise.all([createTestApp(), createTestApp()]);
    tenant = await createTenant(writer);
  });
  afterAll(() => Promise.all([writer.close(), reader.close()]));

  async function addBehavior(campaignId: number, eventName: string): Promise<number> {
    const rows = await writer.get(DataSource).query(
      `INSERT INTO behaviors (organization_id, campaign_id, name, points, data, goal_groups)
       VALUES ($1, $2, $3, 10, '{}', $4) RETURNING id`,
      [tenant.organizationId, campaignId, `Listen ${eventName} ${campaignId}`, JSON.stringify([{ goal_count: null, goals: [{ id: campaignId * 100, name: eventName, internal_event_name: null, event_count: 1, type: 'count', unique_attribute: null, points: 0, required: false, criteria: [], tags: null, data: {} }] }])],
    );
    await writer.get(DataSource).query(`UPDATE organizations SET rules_version = rules_version + 1 WHERE id = $1`, [tenant.organizationId]);
    return rows[0].id;
  }

  const listeners = async (name: string) => {
    const rules = await reader.get(RulesCacheService).get(tenant.organizationId);
    return (rules.listeners.get(name) ?? []).map((g) => g.behavior.campaign.rule.id);
  };

  it('sees a new live campaign, then stops seeing it once it is paused or deleted elsewhere', async () => {
    const campaign = await createCampaign(writer, tenant);
    await addBehavior(campaign.id, 'visit');
    expect(await listeners('visit')).toEqual([campaign.id]);

    await api(writer, tenant)
      .put(`/management/campaigns/${campaign.id}`)
      .send({ campaign: { name: campaign.name, status: 'paused', starts_at: campaign.starts_at, ends_at: campaign.ends_at } })
      .expect(200);
    expect(await listeners('visit')).toEqual([]);

    await api(writer, tenant)
      .put(`/management/campaigns/${campaign.id}`)
      .send({ campaign: { name: campaign.name, status: 'live', starts_at: campaign.starts_at, ends_at: campaign.ends_at } })
      .expect(200);
    expect(await listeners('visit')).toEqual([campaign.id]);

    await api(writer, tenant).delete(`/management/campaigns/${campaign.id}`).expect(200);
    expect(await listeners('visit')).toEqual([]);
  });

  it('keeps serving the compiled rules while the version is unchanged', async () => {
    const cache = reader.get(RulesCacheService);
    const first = await cache.get(tenant.organizationId);
    expect(await cache.get(tenant.organizationId)).toBe(first);
    await createCampaign(writer, tenant);
    expect(await cache.get(tenant.organizationId)).not.toBe(first);
  });

  it('credits the points of an edited behavior on the very next event, whichever process takes it', async () => {
    const campaign = await createCampaign(writer, tenant);
    const behavior = { name: `Check in ${campaign.id}`, points: 5, data: {}, goal_groups: [{ goals: [{ achievement: { name: `checkin_${campaign.id}` } }] }] };
    const created = await api(writer, tenant).post(`/management/campaigns/${campaign.id}/behaviors/_batch`).send({ behaviors: [behavior] }).expect(201);
    const user = await createCustomer(writer, tenant);
    const send = (app: INestApplication) =>
      api(app, tenant).post(`/users/${user.id}/events`).send({ events: { [`checkin_${campaign.id}`]: 1 } }).expect(200);

    expect((await send(reader)).body.user.available_points).toBe(5);
    await api(writer, tenant).put(`/management/behaviors/${created.body.behaviors[0].id}`).send({ behavior: { ...behavior, points: 7 } }).expect(200);
    expect((await send(reader)).body.user.available_points).toBe(12);
  });

  it("never mixes organizations' rules", async () => {
    const other = await createTenant(writer);
    const campaign = await createCampaign(writer, other);
    await writer.get(DataSource).query(`UPDATE organizations SET rules_version = rules_version + 1 WHERE id = $1`, [other.organizationId]);
    const otherRules = await reader.get(RulesCacheService).get(other.organizationId);
    expect([...otherRules.campaigns.keys()]).toEqual([campaign.id]);
    expect([...(await reader.get(RulesCacheService).get(tenant.organizationId)).campaigns.keys()]).not.toContain(campaign.id);
  });
});
