import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The event log and its outcome rows no longer carry foreign keys to the configuration rows every event shares
 * (organization, api key, behavior, campaign, creative, offer). Each such check locked the one shared parent row
 * for every event written, by every transaction at once, and cost PostgreSQL half of a V2 insert's CPU. Those
 * parents are never deleted (organizations and keys are deactivated, campaign objects soft-deleted), and every id
 * written comes from the rules or tenant of the same request. Keys to customers and to events stay: each names one
 * customer's rows, which the evaluation holds anyway. See docs/decisions/0007-event-log-foreign-keys.md.
 */
const DROPPED: Array<[table: string, column: string, parent: string]> = [
  ['events', 'organization_id', 'organizations'],
  ['events', 'api_key_id', 'api_keys'],
  ['points_ledger', 'organization_id', 'organizations'],
  ['customer_progress', 'behavior_id', 'behaviors'],
  ['notifications', 'organization_id', 'organizations'],
  ['notifications', 'campaign_id', 'campaigns'],
  ['notifications', 'behavior_id', 'behaviors'],
  ['notifications', 'creative_id', 'creatives'],
  ['customer_offers', 'organization_id', 'organizations'],
  ['customer_offers', 'campaign_id', 'campaigns'],
  ['customer_offers', 'behavior_id', 'behaviors'],
  ['customer_offers', 'offer_id', 'offers'],
];

export class EventLogSharedParentKeys1764200000000 implements MigrationInterface {
  name = 'EventLogSharedParentKeys1764200000000';

  async up(q: QueryRunner): Promise<void> {
    for (const [table, column, parent] of DROPPED) {
      const [found] = (await q.query(
        `SELECT c.conname FROM pg_constraint c
           JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
          WHERE c.contype = 'f' AND c.conrelid = $1::regclass AND c.confrelid = $2::regclass AND a.attname = $3`,
        [table, parent, column],
      )) as Array<{ conname: string }>;
      if (found) await q.query(`ALTER TABLE ${table} DROP CONSTRAINT "${found.conname}"`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [table, column, parent] of DROPPED) {
      await q.query(`ALTER TABLE ${table} ADD FOREIGN KEY (${column}) REFERENCES ${parent}(id)`);
    }
  }
}
