import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { DataSource } from 'typeorm';
import { UUID } from '../../common/validation/uuid.js';

/** A timestamp as the API answers it (JavaScript's toISOString: milliseconds, UTC). */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** One list of the export: `select` builds each item as JSON, from `from` where `$1` is the customer, newest first by `keys`. */
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

/**
 * The export's reads: each list as one `COPY (query) TO STDOUT`, its rows the list's JSON items (every one but the
 * first led by a comma, one per line: whitespace between items is JSON's), in its order. PostgreSQL streams them and
 * the bytes go to the answer as they come, never decoded into strings: the process holds what the socket's and the
 * stream's buffers hold, whatever the customer's history.
 */
@Injectable()
export class CustomerExportRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /**
   * Runs `work` with a connection of its own (the pool's run in pipeline mode, where a COPY cannot go; an export is
   * rare and long), given a `copy` that sends a list's items (their text, comma-led) to `send`, which waits while the
   * answer's buffer is full.
   */
  async session<T>(work: (copy: (list: ExportListName, customerId: string, send: (chunk: Buffer) => Promise<void>) => Promise<void>) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: (this.db.options as { url?: string }).url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await work(async (list, customerId, send) => {
        for await (const chunk of client.query(copyTo(copyOf(list, customerId))) as AsyncIterable<Buffer>) await send(chunk);
      });
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** The COPY of a list: its items' JSON text, every one but the first led by a comma, newest first. */
function copyOf(list: ExportListName, customerId: string): string {
  if (!UUID.test(customerId)) throw new Error('the export names a customer by its id');
  const { select, from, keys } = EXPORT_LISTS[list];
  const order = `${keys[0]} DESC, ${keys[1]} DESC`;
  // COPY takes no parameters: the id, a UUID checked above, is written in as a literal.
  const query = `SELECT CASE WHEN row_number() OVER (ORDER BY ${order}) = 1 THEN '' ELSE ',' END || (${select})::text
                   FROM ${from.replace('$1', `'${customerId}'`)} ORDER BY ${order}`;
  // CSV with a quote and a delimiter JSON text never holds raw (it escapes control characters): each row as it is.
  return `COPY (${query}) TO STDOUT WITH (FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')`;
}
