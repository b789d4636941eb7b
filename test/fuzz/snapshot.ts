import pg from 'pg';

/** Tables without organization_id, scoped through their parent. */
const THROUGH_PARENT: Record<string, string> = {
  organizations: 'id = ANY($1)',
  customer_progress: 'customer_id IN (SELECT id FROM customers WHERE organization_id = ANY($1))',
  webhook_delivery_attempts: 'delivery_id IN (SELECT id FROM webhook_deliveries WHERE organization_id = ANY($1))',
};

/**
 * Tables read through some of their columns: those a request writes. A simulation's status and counts are written by
 * whichever worker of the test run sweeps and runs it (any worker on the run's database), never by a request here.
 */
const COLUMNS: Record<string, string> = {
  simulations: '(SELECT id, organization_id, campaign_id, range_from, range_to, customer_ids, explain, created_at, status = \'cancelled\' AS cancelled FROM simulations)',
};

/**
 * Every row of the given organizations, in every table of the schema, as one row count and md5 per table, read over
 * a connection of its own (not the app's pool). Tables found in the schema at start, so a new table is covered.
 * A table with neither organization_id nor a rule above is taken whole.
 */
export class DataSnapshot {
  private readonly client: pg.Client;
  private sql = '';

  constructor(private readonly organizationIds: number[]) {
    this.client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  }

  async open(): Promise<void> {
    await this.client.connect();
    const { rows } = await this.client.query<{ table_name: string; scoped: boolean }>(
      `SELECT t.table_name, EXISTS (SELECT 1 FROM information_schema.columns c
                                     WHERE c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.column_name = 'organization_id') AS scoped
         FROM information_schema.tables t
        WHERE t.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND t.table_name <> 'migrations'
          -- A partitioned table is read whole through its parent (events), not again partition by partition.
          AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = (quote_ident(t.table_name))::regclass)
        ORDER BY t.table_name`,
    );
    if (rows.length < 10) throw new Error(`expected the app's tables, found ${rows.map((r) => r.table_name).join(', ')}`);
    this.sql = rows
      .map(({ table_name: table, scoped }) => {
        const where = scoped ? 'organization_id = ANY($1)' : (THROUGH_PARENT[table] ?? 'true');
        return `SELECT '${table}' AS t, count(*)::int AS n, md5(coalesce(string_agg(x::text, ',' ORDER BY x::text), '')) AS h FROM ${COLUMNS[table] ?? table} x WHERE ${where}`;
      })
      .join('\nUNION ALL ')
      .concat('\nORDER BY t');
  }

  /** One line per table: "table rows md5". */
  async take(): Promise<string[]> {
    // A named (prepared) statement: parsed once for the spec's thousands of snapshots, not once per request.
    const { rows } = await this.client.query<{ t: string; n: number; h: string }>({ name: 'fuzz-snapshot', text: this.sql, values: [this.organizationIds] });
    return rows.map((r) => `${r.t} ${r.n} ${r.h}`);
  }

  async close(): Promise<void> {
    await this.client.end();
  }
}

/**
 * Holds the last snapshot and checks, after each request, that a rejected one changed nothing. Accepted requests
 * may change data: the snapshot after them becomes the reference.
 */
export class ChangeWatch {
  private last: string[] = [];

  constructor(private readonly snapshot: DataSnapshot) {}

  async start(): Promise<void> {
    this.last = await this.snapshot.take();
  }

  /** Throws naming the tables that changed, when `rejected` and anything did. */
  async after(rejected: boolean, what: string): Promise<void> {
    const now = await this.snapshot.take();
    const changed = now.filter((line, i) => line !== this.last[i]).map((line) => line.split(' ').slice(0, 2).join(' rows: '));
    this.last = now;
    if (rejected && changed.length) throw new Error(`a rejected request changed data (${changed.join('; ')}): ${what}`);
  }
}
