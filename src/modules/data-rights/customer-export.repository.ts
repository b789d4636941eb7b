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

  /**
   * The list's items, batch by batch, each batch one string of JSON items joined by commas: PostgreSQL builds it, so
   * the process holds one string per batch, not a thousand rows of objects.
   */
  async *batches(list: ExportListName, customerId: string): AsyncGenerator<string> {
    const { select, from, keys } = EXPORT_LISTS[list];
    const [k1, k2] = keys;
    let after: [string, string] | null = null;
    for (;;) {
      const [page] = (await this.db.query(
        `WITH page AS (
           SELECT ${select}::text AS j, ${k1} AS o1, ${k2} AS o2 FROM ${from}${after ? ` AND (${k1}, ${k2}) < ($2, $3)` : ''}
            ORDER BY ${k1} DESC, ${k2} DESC LIMIT ${EXPORT_BATCH})
         SELECT string_agg(j, ',' ORDER BY o1 DESC, o2 DESC) AS items, count(*)::int AS n,
                (array_agg(o1::text ORDER BY o1, o2))[1] AS k1, (array_agg(o2::text ORDER BY o1, o2))[1] AS k2
           FROM page`,
        after ? [customerId, ...after] : [customerId],
      )) as Array<{ items: string | null; n: number; k1: string; k2: string }>;
      if (page.items !== null) yield page.items;
      if (page.n < EXPORT_BATCH) return;
      after = [page.k1, page.k2];
    }
  }
}
