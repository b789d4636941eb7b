import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops the foreign key from `events` to `customers` (docs/decisions/0007). V2 acceptance writes a batch of events for
 * customers it does not lock; the key's check locked each of them (FOR KEY SHARE), which writes the customer's row
 * header: a random page dirtied and logged per event. On 1,000,000 customers that cost more than the insert itself
 * (bench:history, V2 acceptance: 5,770 events/s with the key, 8,921 without). Customers are never deleted, and every
 * customer id an event is written with comes from the same statement's lookup or the evaluation's locked row.
 */
export class EventsWithoutCustomerKey1765100000000 implements MigrationInterface {
  name = 'EventsWithoutCustomerKey1765100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events DROP CONSTRAINT IF EXISTS events_customer_id_fkey`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE events ADD CONSTRAINT events_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers(id)`);
  }
}
