import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createBehaviors } from '../factories/behavior.factory.js';
import { createCampaign } from '../factories/campaign.factory.js';
import { createCustomer } from '../factories/customer.factory.js';
import { api, createTenant, TestTenant } from '../factories/tenant.factory.js';

const DAY = 86_400_000;

/** Real ids of one organization, by path parameter name (as the OpenAPI document names them), and a few more. */
export type Ids = Record<string, string>;

export interface Org {
  tenant: TestTenant;
  ids: Ids;
}

async function created(res: Promise<{ status: number; body: Record<string, unknown> }>, what: string): Promise<Record<string, unknown>> {
  const answer = await res;
  if (answer.status !== 201) throw new Error(`creating ${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/**
 * An organization with one of everything the routes name: a division, tier, offer, customer, live campaign with
 * behaviors, a line item with a triggered creative and a scheduled one (so an audience job), a webhook and a
 * simulation (cancelled).
 */
export async function buildOrg(app: INestApplication, name: string): Promise<Org> {
  const tenant = await createTenant(app, { name });
  const http = api(app, tenant);
  const division = await created(http.post('/management/divisions').send({ division: { name: 'Stores', parent_id: tenant.rootDivisionId } }), 'division');
  const tier = await created(http.post('/management/tiers').send({ tier: { name: 'Gold', min_points: 100 } }), 'tier');
  const offer = await created(http.post('/management/offers').send({ offer: { name: 'Coffee', points: 5 } }), 'offer');
  const divisionId = (division.division as { id: number }).id;
  const customer = await createCustomer(app, tenant, { division_id: divisionId, tags: ['vip'], attributes: { plan: 'gold' } });
  const campaign = await createCampaign(app, tenant);
  const behaviors = await createBehaviors(app, tenant, campaign.id, [
    { name: 'Visit twice', event: 'store_visit', event_count: 2, points: 10 },
    { name: 'Two stores', event: 'store_visit', type: 'unique', unique_attribute: 'store_id', event_count: 2, outcomes: [{ points: 3 }] },
  ]);
  const window = { status: 'live', starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
  const lineItem = await created(http.post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: { name: 'Main', ...window } }), 'line item');
  const lineItemId = (lineItem.line_items as Array<{ id: number }>)[0].id;
  const groups: number[] = [];
  for (const groupName of ['Everyone', 'Files']) {
    const group = await created(http.post(`/management/line_items/${lineItemId}/creative_groups`).send({ creative_group: { name: groupName, ...window } }), 'creative group');
    groups.push((group.creative_groups as Array<{ id: number }>)[0].id);
  }
  const applicationId = await firstApplication(app, tenant);
  const push = await created(
    http.post(`/management/creative_groups/${groups[0]}/creatives`).send({
      creative: {
        name: 'Push',
        status: 'live',
        ad_type: 'push_message',
        creative_type: 'messaging-platform-push',
        application_id: applicationId,
        message: 'Well done',
        issue_audience_csv: { delivery_method: 'triggered', behavior_id: behaviors[0].id },
      },
    }),
    'creative',
  );
  const file = await created(
    http.post(`/management/creative_groups/${groups[1]}/creatives`).send({
      creative: {
        name: 'File',
        status: 'live',
        ad_type: 'issue_audience_csv',
        creative_type: 'issue-audience-csv',
        application_id: applicationId,
        issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: new Date(Date.now() + 20 * DAY).toISOString() },
      },
    }),
    'scheduled creative',
  );
  const fileId = (file.creatives as Array<{ id: number }>)[0].id;
  const jobs = await http.get(`/management/creatives/${fileId}/audience_jobs`);
  // A simulation, cancelled at once: it stays as it is whatever a worker does.
  const simulation = await http.post(`/management/campaigns/${campaign.id}/simulations`).send({ simulation: { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } });
  if (simulation.status !== 202) throw new Error(`creating a simulation answered ${simulation.status}: ${JSON.stringify(simulation.body)}`);
  const simulationId = String((simulation.body.simulation as { id: number }).id);
  await http.delete(`/management/simulations/${simulationId}`).expect(200);
  const webhook = await created(http.post('/management/webhooks').send({ webhook: { url: 'http://127.0.0.1:9/hook', event_types: ['points.credited'] } }), 'webhook');
  const ids: Ids = {
    api_key: tenant.apiKey,
    id: String(tenant.organizationId),
    user_id: customer.id,
    external_id: customer.external_id,
    campaign_id: String(campaign.id),
    ad_campaign_id: String(campaign.id),
    permalink: campaign.permalink,
    division_id: String(divisionId),
    tier_id: String((tier.tier as { id: number }).id),
    offer_id: String((offer.offer as { id: number }).id),
    behavior_id: String(behaviors[0].id),
    line_item_id: String(lineItemId),
    creative_group_id: String(groups[0]),
    creative_id: String((push.creatives as Array<{ id: number }>)[0].id),
    job_id: String((jobs.body.audience_jobs as Array<{ id: number }>)[0].id),
    webhook_id: String((webhook.webhook as { id: number }).id),
    simulation_id: simulationId,
    // Not path parameters: values that make the documented example bodies fit this organization.
    root_division_id: String(tenant.rootDivisionId),
    application_id: String(applicationId),
  };
  return { tenant, ids };
}

async function firstApplication(app: INestApplication, tenant: TestTenant): Promise<number> {
  const rows = (await app.get(DataSource).query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [tenant.organizationId])) as Array<{ id: number }>;
  return rows[0].id;
}
