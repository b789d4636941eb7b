import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createBehavior } from '../factories/behavior.factory.js';
import { createCampaign } from '../factories/campaign.factory.js';
import { createTriggeredCreative } from '../factories/creative.factory.js';
import { createCustomer } from '../factories/customer.factory.js';
import { api, createTenant, TestTenant } from '../factories/tenant.factory.js';

/** One organization with one of every kind of object, all reachable through the API. */
export interface World {
  tenant: TestTenant;
  applicationId: number;
  customer: { id: string; external_id: string };
  campaign: { id: number; permalink: string };
  behaviorId: number;
  lineItemId: number;
  creativeGroupId: number;
  creativeId: number;
  offerId: number;
  tierId: number;
  divisionId: number;
  webhook: { id: number; secret: string };
  audienceJobId: number;
  simulationId: number;
}

let counter = 0;

/**
 * Builds a world through the management API: a division, a tier, an offer, a live campaign with a behavior and a
 * triggered creative (line item and creative group), a webhook, a customer whose event completes the behavior (so it
 * has points, a notification, a webhook delivery and a timeline entry), a completed audience job with its CSV, and a
 * simulation (cancelled).
 * The audience job is written as the worker leaves one (row and file in `storageDir`): running a scheduled delivery
 * would only add waiting.
 */
export async function buildWorld(app: INestApplication, storageDir: string): Promise<World> {
  counter += 1;
  const tag = `${counter}-${Date.now().toString(36)}`;
  const tenant = await createTenant(app, { name: `World ${tag}`, multi_org_enabled: true });
  const client = api(app, tenant);
  const db = app.get(DataSource);

  const divisionId = (await client.post('/management/divisions').send({ division: { name: 'North', parent_id: tenant.rootDivisionId } }).expect(201)).body
    .division.id as number;
  const tierId = (await client.post('/management/tiers').send({ tier: { name: 'Gold', min_points: 1000 } }).expect(201)).body.tier.id as number;
  const offerId = (await client.post('/management/offers').send({ offer: { name: 'Coffee', points: 5 } }).expect(201)).body.offer.id as number;
  // An experiment that holds no one out (its results route has an object to read; every customer is evaluated as before).
  const campaign = await createCampaign(app, tenant, { permalink: `world-${tag}`, experiment: { holdout_percent: 0, metric: { event: 'visit' } } });
  const behavior = await createBehavior(app, tenant, campaign.id, { name: 'Visit', event: 'visit', points: 10, outcomes: [{ deal: { id: offerId } }] });
  const creativeId = await createTriggeredCreative(app, tenant, campaign.id, behavior.id, { message: 'Thanks for visiting' });
  const navigation = await client.get(`/management/campaigns/${campaign.id}/navigation`).expect(200);
  const lineItem = navigation.body.campaign.line_items[0];
  const webhook = await client
    .post('/management/webhooks')
    .send({ webhook: { url: 'http://127.0.0.1:9/hook', event_types: ['points.credited', 'notification.created'] } })
    .expect(201);
  const customer = await createCustomer(app, tenant, { external_id: `customer-${tag}`, tags: ['vip'], attributes: { plan: 'gold' } });
  await client.post(`/users/${customer.id}/events`).send({ events: { visit: 1 } }).expect(200);

  const [{ id: applicationId }] = (await db.query('SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1', [tenant.organizationId])) as Array<{
    id: number;
  }>;
  const file = `security-${tag}.csv`;
  await writeFile(join(storageDir, file), `external_id,user_id\n${customer.external_id},${customer.id}\n`);
  const [{ id: audienceJobId }] = (await db.query(
    `INSERT INTO audience_jobs (organization_id, creative_id, status, scheduled_at, customer_count, file_path, started_at, completed_at)
     VALUES ($1, $2, 'completed', now(), 1, $3, now(), now()) RETURNING id`,
    [tenant.organizationId, creativeId, file],
  )) as Array<{ id: number }>;

  // A simulation, cancelled at once: no worker changes it afterwards.
  const simulationId = (
    await client.post(`/management/campaigns/${campaign.id}/simulations`).send({ simulation: { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' } }).expect(202)
  ).body.simulation.id as number;
  await client.delete(`/management/simulations/${simulationId}`).expect(200);

  return {
    tenant,
    applicationId: Number(applicationId),
    customer,
    campaign: { id: campaign.id, permalink: campaign.permalink },
    behaviorId: behavior.id,
    lineItemId: lineItem.id,
    creativeGroupId: lineItem.creative_groups[0].id,
    creativeId,
    offerId,
    tierId,
    divisionId,
    webhook: { id: webhook.body.webhook.id, secret: webhook.body.webhook.secret },
    audienceJobId: Number(audienceJobId),
    simulationId,
  };
}

/** The world's value for each path parameter name the API uses. */
export function pathValues(world: World): Record<string, string | number> {
  return {
    user_id: world.customer.id,
    external_id: world.customer.external_id,
    campaign_id: world.campaign.id,
    ad_campaign_id: world.campaign.id,
    permalink: world.campaign.permalink,
    behavior_id: world.behaviorId,
    line_item_id: world.lineItemId,
    creative_group_id: world.creativeGroupId,
    creative_id: world.creativeId,
    job_id: world.audienceJobId,
    offer_id: world.offerId,
    tier_id: world.tierId,
    division_id: world.divisionId,
    webhook_id: world.webhook.id,
    simulation_id: world.simulationId,
  };
}

/** Values no object has, for the same parameters: what "does not exist" answers. */
export const UNKNOWN_VALUES: Record<string, string | number> = {
  user_id: '00000000-0000-4000-8000-000000000000',
  external_id: 'no-such-customer',
  campaign_id: 2_000_000_000,
  ad_campaign_id: 2_000_000_000,
  permalink: 'no-such-campaign',
  behavior_id: 2_000_000_000,
  line_item_id: 2_000_000_000,
  creative_group_id: 2_000_000_000,
  creative_id: 2_000_000_000,
  job_id: 2_000_000_000,
  offer_id: 2_000_000_000,
  tier_id: 2_000_000_000,
  division_id: 2_000_000_000,
  webhook_id: 2_000_000_000,
  simulation_id: 2_000_000_000,
};

/**
 * Every row that belongs to an organization, table by table: the tables with an organization_id column, plus the
 * organization itself, its customers' progress and its webhook deliveries' attempts (which hang off those rows).
 */
export async function snapshotOrganization(db: DataSource, organizationId: number): Promise<Record<string, unknown[]>> {
  const tables = (await db.query(
    `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'organization_id' ORDER BY table_name`,
  )) as Array<{ table_name: string }>;
  const snapshot: Record<string, unknown[]> = {};
  for (const { table_name: table } of tables) {
    // By the first column: the id, or the customer of an erasure.
    snapshot[table] = await db.query(`SELECT * FROM "${table}" WHERE organization_id = $1 ORDER BY 1`, [organizationId]);
  }
  snapshot.organizations = await db.query('SELECT * FROM organizations WHERE id = $1', [organizationId]);
  snapshot.customer_progress = await db.query(
    'SELECT p.* FROM customer_progress p JOIN customers c ON c.id = p.customer_id WHERE c.organization_id = $1 ORDER BY p.customer_id, p.behavior_id',
    [organizationId],
  );
  snapshot.webhook_delivery_attempts = await db.query(
    'SELECT a.* FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.organization_id = $1 ORDER BY a.id',
    [organizationId],
  );
  return snapshot;
}
