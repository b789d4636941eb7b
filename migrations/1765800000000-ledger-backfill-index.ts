import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The credits still lacking their `occurred_at` (written before migration 1765500000000), indexed by id: the ledger
 * backfill starts at the first of them, and a worker start with none left (every start once the backfill is done)
 * answers from this index at once instead of walking the whole ledger. The event path writes every credit with its
 * occurred_at, and debits, expiry and reversals are not positive, so no row it writes enters the index.
 */
export class LedgerBackfillIndex1765800000000 implements MigrationInterface {
  name = 'LedgerBackfillIndex1765800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX points_ledger_occurred_at_missing ON points_ledger (id) WHERE occurred_at IS NULL AND amount > 0 AND reason NOT IN ('debit', 'expired', 'reversal')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS points_ledger_occurred_at_missing`);
  }
}
