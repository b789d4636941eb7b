import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Rows one read of a list takes: the export holds one batch at a time, whatever the customer's history. */
export const EXPORT_BATCH = 1_000;

/** A timestamp as the API answers it (JavaScript's toISOString: milliseconds, UTC). */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One list of the export: `select` answers each item as JSON text (`j`) with the two keys it is ordered by, newest
 * first (`keys`, read back as text so that no precision is lost between batches), from `from` where `$1` is the customer.
 */
interface ExportList {
  select: string;
  from: string;
  keys: [string, string];
}

/** The lists of contract §21's export, each read by the index its table has on the customer. */
export const EXPORT_LISTS = {
  events: {
    select: `json_build_object('id', e.id::text, 'name', e.name, 'occurred_at', ${iso('e.occurred_at')}, 'count', e.count,
                               'attributes', e.attributes, 'context', e.context, 'status', e.status)`,
    from: `events e WHERE e.customer_id = $1`,
    keys: ['e.occurred_at', 'e.id'],
  },
  points: {
    select: `json_build_object('id', l.id::text, 'amount', l.amount, 'reason', l.reason, 'event_id', l.event_id::text,
                               'campaign_id', (l.source->>'campaign_id')::int, 'behavior_name', (SELECT b.name FROM behaviors b WHERE b.id = (l.source->>'behavior_id')::int),
                               'expires_at', ${iso('l.expires_at')}, 'created_at', ${iso('l.created_at')})`,
    from: `points_ledger l WHERE l.customer_id = $1`,
    keys: ['l.created_at', 'l.id'],
  },
  notifications: {
    select: `json_build_object('id', n.id, 'type', n.type, 'campaign_id', n.campaign_id, 'behavior_name', (SELECT b.name FROM behaviors b WHERE b.id = n.behavior_id), 'data', n.data)`,
    from: `notifications n WHERE n.customer_id = $1`,
    keys: ['n.created_at', 'n.id'],
  },
  offers: {
    select: `json_build_object('id', co.id::text, 'offer_id', co.offer_id, 'name', (SELECT o.name FROM offers o WHERE o.id = co.offer_id), 'campaign_id', co.campaign_id,
                               'event_id', co.event_id::text, 'issued_at', ${iso('co.issued_at')})`,
    from: `customer_offers co WHERE co.customer_id = $1`,
    keys: ['co.issued_at', 'co.id'],
  },
  tier_history: {
    select: `json_build_object('from', CASE WHEN h.from_tier_id IS NULL THEN NULL ELSE json_build_object('id', h.from_tier_id, 'name', coalesce((SELECT t.name FROM tiers t WHERE t.id = h.from_tier_id), '')) END,
                               'to', CASE WHEN h.to_tier_id IS NULL THEN NULL ELSE json_build_object('id', h.to_tier_id, 'name', coalesce((SELECT t.name FROM tiers t WHERE t.id = h.to_tier_id), '')) END,
                               'reason', h.reason, 'at', ${iso('h.at')})`,
    from: `tier_history h WHERE h.customer_id = $1`,
    keys: ['h.at', 'h.id'],
  },
  webhook_deliveries: {
    select: `json_build_object('id', d.id::text, 'event_type', d.type, 'created_at', ${iso('d.created_at')}, 'status', d.status)`,
    from: `webhook_deliveries d WHERE (d.payload #>> '{data,user_id}') = $1::text`,
    keys: ['d.id', 'd.id'],
  },
} satisfies Record<string, ExportList>;

export type ExportListName = keyof typeof EXPORT_LISTS;

/** The export's reads: each list batch by batch, newest first, resuming after the last row of the previous batch. */
@Injectable()
export class CustomerExportRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async *batches(list: ExportListName, customerId: string): AsyncGenerator<string[]> {
    const { select, from, keys } = EXPORT_LISTS[list];
    const [k1, k2] = keys;
    let after: [unknown, unknown] | null = null;
    for (;;) {
      const rows = (await this.db.query(
        `SELECT ${select}::text AS j, ${k1}::text AS k1, ${k2}::text AS k2 FROM ${from}${after ? ` AND (${k1}, ${k2}) < ($2, $3)` : ''}
          ORDER BY ${k1} DESC, ${k2} DESC LIMIT ${EXPORT_BATCH}`,
        after ? [customerId, ...after] : [customerId],
      )) as Array<{ j: string; k1: unknown; k2: unknown }>;
      if (rows.length) yield rows.map((r) => r.j);
      if (rows.length < EXPORT_BATCH) return;
      const last = rows[rows.length - 1];
      after = [last.k1, last.k2];
    }
  }
}
