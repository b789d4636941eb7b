import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Tenant } from '../../../src/common/http/request-context.js';

/** Rows a medium spec needs, written with SQL (the factories in test/factories go through HTTP). */

let counter = 0;
const next = () => `${++counter}-${randomUUID().slice(0, 8)}`;

async function one<T>(db: DataSource, text: string, values: unknown[]): Promise<T> {
  const rows = (await db.query(text, values)) as T[];
  return rows[0];
}

/** An organization with its root division, one application and one api key; answered as the request's Tenant. */
export async function seedTenant(db: DataSource, organization: { multiOrgEnabled?: boolean } = {}): Promise<Tenant> {
  const name = next();
  const org = await one<{ id: number }>(db, `INSERT INTO organizations (name, multi_org_enabled) VALUES ($1, $2) RETURNING id`, [`Org ${name}`, organization.multiOrgEnabled ?? false]);
  const division = await one<{ id: number }>(db, `INSERT INTO divisions (organization_id, name) VALUES ($1, 'Root') RETURNING id`, [org.id]);
  const app = await one<{ id: number }>(db, `INSERT INTO applications (organization_id, name) VALUES ($1, 'Web') RETURNING id`, [org.id]);
  const apiKey = `key-${name}`;
  const key = await one<{ id: number }>(db, `INSERT INTO api_keys (organization_id, application_id, key, secret_hash) VALUES ($1, $2, $3, 'unused') RETURNING id`, [
    org.id,
    app.id,
    apiKey,
  ]);
  return { organizationId: org.id, applicationId: app.id, apiKeyId: key.id, apiKey, multiOrgEnabled: organization.multiOrgEnabled ?? false, timeZone: 'UTC', rootDivisionId: division.id };
}

export interface SeededCustomer {
  id: string;
  externalId: string;
}

export async function seedCustomer(db: DataSource, tenant: Tenant, points = 0): Promise<SeededCustomer> {
  const externalId = `customer-${next()}`;
  const row = await one<{ id: string }>(
    db,
    `INSERT INTO customers (organization_id, external_id, time_zone, division_id, available_points, lifetime_points) VALUES ($1, $2, 'UTC', $3, $4, $4) RETURNING id`,
    [tenant.organizationId, externalId, tenant.rootDivisionId, points],
  );
  return { id: row.id, externalId };
}

export async function seedCustomers(db: DataSource, tenant: Tenant, count: number): Promise<SeededCustomer[]> {
  const customers: SeededCustomer[] = [];
  for (let i = 0; i < count; i++) customers.push(await seedCustomer(db, tenant));
  return customers;
}

export interface BehaviorSeed {
  /** The event its one goal counts (event_count 1 unless told). */
  event: string;
  /** Behavior points, credited on each completion. */
  points: number;
  eventCount?: number;
  /** Behavior data: period, max_times_achievable_per_period, ... */
  data?: Record<string, unknown>;
}

/**
 * A live campaign (2020 to 2100) of the tenant's root division with one behavior per seed, each of one count goal;
 * bumps the organization's rules version, as every configuration write does. Answers the campaign and behavior ids.
 */
export async function seedCampaign(db: DataSource, tenant: Tenant, behaviors: BehaviorSeed[]): Promise<{ campaignId: number; behaviorIds: number[] }> {
  const name = next();
  const campaign = await one<{ id: number }>(
    db,
    `INSERT INTO campaigns (organization_id, name, permalink, status, starts_at, ends_at, division_id)
     VALUES ($1, $2, $3, 'live', '2020-01-01T00:00:00Z', '2100-01-01T00:00:00Z', $4) RETURNING id`,
    [tenant.organizationId, `Campaign ${name}`, `campaign-${name}`, tenant.rootDivisionId],
  );
  const behaviorIds: number[] = [];
  for (const b of behaviors) {
    const goal = await one<{ id: number }>(db, `SELECT nextval('goals_id_seq')::int AS id`, []);
    const goals = [
      { id: goal.id, name: b.event, internal_event_name: b.event, event_count: b.eventCount ?? 1, type: 'count', unique_attribute: null, points: 0, required: false, criteria: [], tags: null, data: {} },
    ];
    const row = await one<{ id: number }>(
      db,
      `INSERT INTO behaviors (organization_id, campaign_id, name, points, data, goal_groups) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
      [tenant.organizationId, campaign.id, `Behavior ${next()}`, b.points, JSON.stringify(b.data ?? {}), JSON.stringify([{ goal_count: null, goals }])],
    );
    behaviorIds.push(row.id);
  }
  await bumpRules(db, tenant.organizationId);
  return { campaignId: campaign.id, behaviorIds };
}

/** What a management write does to every process's compiled rules: the next evaluation compiles them again. */
export async function bumpRules(db: DataSource, organizationId: number): Promise<void> {
  await db.query(`UPDATE organizations SET rules_version = rules_version + 1 WHERE id = $1`, [organizationId]);
}
