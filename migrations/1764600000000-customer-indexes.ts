import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * No index of `customers` leads with `organization_id` any more (decision 0008). Lookups name a customer by id or
 * external id and add the organization as a check; while the statistics do not know an organization yet (one created
 * and filled since the last ANALYZE), PostgreSQL estimates it at one row, and an index leading with organization_id
 * then looked as cheap as the primary key: each lookup walked every customer of the organization (a batch of 100 V2
 * events took seconds instead of a millisecond, with 200,000 customers).
 * - external ids: unique on (external_id, organization_id), which lookups by external id use in full;
 * - divisions: (division_id, id), for the division checks and the audience pages (keyset by id within a division).
 */
export class CustomerIndexes1764600000000 implements MigrationInterface {
  name = 'CustomerIndexes1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX customers_external_id`);
    await q.query(`CREATE UNIQUE INDEX customers_external_id ON customers (external_id, organization_id)`);
    await q.query(`DROP INDEX customers_division`);
    await q.query(`CREATE INDEX customers_division ON customers (division_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX customers_division`);
    await q.query(`CREATE INDEX customers_division ON customers (organization_id, division_id)`);
    await q.query(`DROP INDEX customers_external_id`);
    await q.query(`CREATE UNIQUE INDEX customers_external_id ON customers (organization_id, external_id)`);
  }
}
