import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Statement } from '../../../common/database/unit-of-work.js';
import { EventRecord } from '../../../database/entities/event.entity.js';
import type { CustomerSnapshot, EventInstance } from '../../../engine/index.js';
import { customerSnapshot, PROFILE_COLUMNS, storedInstance, type ProfileRow } from '../../evaluation/index.js';

/** Where a page of a customer's events resumes: after this event, in `occurred_at` order. */
export interface EventLogCursor {
  occurredAt: Date;
  id: string;
}

/** An event of a submission, as a reversal reads it. */
export interface SubmissionEvent {
  id: string;
  customer_id: string | null;
  name: string;
  occurred_at: Date;
  status: string;
  points_earned: string;
  /** The evaluation's summary: its completions among others (src/modules/evaluation/event-outcome.ts). */
  result: { completions?: Array<{ campaign_id: number; behavior_id: number; achieved: number }> } | null;
}

/** Which stored events a replay reads (contract §15), and in which order. */
export interface ReplayScope {
  organizationId: number;
  /** Inclusive at both ends, as a campaign's starts_at and ends_at are. */
  from: Date;
  to: Date;
  /** null: every customer of the organization. */
  customerIds: string[] | null;
  /** `customer`: one customer's events after another's (customers by id); `time`: every event by time, customers mixed. */
  order: 'customer' | 'time';
}

/** A stored event as a replay evaluates it. */
export interface ReplayEvent {
  customerId: string;
  instance: EventInstance;
  qualify: boolean;
}

/**
 * A page of a replay: its events, and the profiles (as they are now) of the customers whose first events of the
 * replay are on it. An event of a customer deleted since is left out.
 */
export interface ReplayPage {
  customers: CustomerSnapshot[];
  events: ReplayEvent[];
}

/** Pages of a replay, all read in one snapshot; null once every page was read. Close it when done. */
export interface ReplayStream {
  next(): Promise<ReplayPage | null>;
  close(): Promise<void>;
}

interface ReplayRow {
  customer_id: string;
  name: string;
  count: string | number;
  attributes: Record<string, unknown>;
  context: EventInstance['context'];
  at: number;
  qualify: boolean;
}

/** A customer's profile and events (in customer order): each event [name, count, attributes, context, at, qualify]. */
interface HistoryRow extends ProfileRow {
  events: Array<[string, number, Record<string, unknown>, EventInstance['context'], number, boolean]>;
}

/**
 * The events stored under an api key's transaction id (every instance of a V1 submission carries it), in id order.
 * The key's row in `event_transactions` gives the month: as a sub-select, PostgreSQL skips every other month while it
 * runs the statement, and reads that month's partition by its index on the key. Run on the event path's unit of work
 * (a reversal) or through TypeORM.
 */
export function submissionStatement(apiKeyId: number, transactionId: string): Statement {
  return {
    name: 'events-of-submission',
    text: `SELECT e.id, e.customer_id, e.name, e.occurred_at, e.status, e.points_earned, e.result
             FROM events e
            WHERE e.api_key_id = $1 AND e.transaction_id = $2
              AND e.occurred_at = (SELECT t.occurred_at FROM event_transactions t WHERE t.api_key_id = $1 AND t.transaction_id = $2)
            ORDER BY e.id`,
    values: [apiKeyId, transactionId],
  };
}

/**
 * Reads of the stored event log that name its partition key, so that PostgreSQL reads only the months concerned
 * (docs/decisions/0011-partitioned-event-log.md): an api key's submission by transaction id (reversals), a
 * customer's events in a time range, and every event of a simulation's range (replay). Each costs the same whatever
 * the log's size outside the range.
 */
@Injectable()
export class EventLogRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  /** The events stored under an api key's transaction id, in id order (submissionStatement). */
  async byTransaction(apiKeyId: number, transactionId: string, em: EntityManager = this.db.manager): Promise<SubmissionEvent[]> {
    const { text, values } = submissionStatement(apiKeyId, transactionId);
    return em.query(text, values);
  }

  /**
   * A page of the customer's events that occurred in [from, to), oldest first (ties by id), after `page.after` when
   * given (times are stored to the millisecond, as the cursor holds them). Reads the months of the range only, each by
   * the customer's index.
   */
  async ofCustomer(
    customerId: string,
    range: { from: Date; to: Date },
    page: { after?: EventLogCursor; limit: number },
    em: EntityManager = this.db.manager,
  ): Promise<EventRecord[]> {
    const query = em
      .createQueryBuilder(EventRecord, 'e')
      .where('e.customer_id = :customerId AND e.occurred_at >= :from AND e.occurred_at < :to', { customerId, ...range });
    if (page.after) query.andWhere('(e.occurred_at, e.id) > (:afterAt, :afterId)', { afterAt: page.after.occurredAt, afterId: page.after.id });
    return query.orderBy('e.occurred_at', 'ASC').addOrderBy('e.id', 'ASC').limit(page.limit).getMany();
  }

  /**
   * A replay's events (contract §15): those of the scope's customers that occurred in the range, every status but
   * `rejected`, perform's calls left out (they are not events a behavior listens to), in the scope's order with ties
   * by id. A server-side cursor in a read-only REPEATABLE READ transaction on a connection of its own, so that every
   * page, and every profile, comes from one snapshot (events stored during the replay do not change it); never the whole
   * range in memory. A page holds `pageSize` rows of the cursor: in customer order a row is a customer, with its profile
   * and all its events of the range (one JSON array: a tenth of the decoding of a row per event, and no second query);
   * in time order a row is an event, and the profiles of the page's new customers are read after it.
   */
  async replay(scope: ReplayScope, pageSize: number): Promise<ReplayStream> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`);
      // Every row is read: planned for all of them, the range is scanned once and sorted in memory (docs/simulations.md).
      await runner.query(`SET LOCAL cursor_tuple_fraction = 1`);
      await runner.query(`SET LOCAL work_mem = '${REPLAY_WORK_MEM}'`);
      await runner.query(`DECLARE replay NO SCROLL CURSOR FOR ${scope.order === 'customer' ? BY_CUSTOMER : BY_TIME}`, [
        scope.organizationId,
        scope.from,
        scope.to,
        scope.customerIds,
      ]);
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined); // never back to the pool inside a failed transaction
      await runner.release();
      throw error;
    }
    const fetch = async <T>() => (await runner.query(`FETCH ${Number(pageSize)} FROM replay`)) as T[];
    const asked = new Set<string>(); // time order: the customers whose profile was read (or found missing)
    const found = new Set<string>();
    const read = async (): Promise<ReplayPage | null> => {
      if (scope.order === 'customer') {
        const rows = await fetch<HistoryRow>();
        return rows.length === 0 ? null : { customers: rows.map(customerSnapshot), events: rows.flatMap(historyEvents) };
      }
      const rows = await fetch<ReplayRow>();
      if (rows.length === 0) return null;
      const missing = [...new Set(rows.map((r) => r.customer_id))].filter((id) => !asked.has(id));
      const profiles = missing.length === 0 ? [] : ((await runner.query(PROFILES, [scope.organizationId, missing])) as ProfileRow[]);
      for (const id of missing) asked.add(id);
      for (const profile of profiles) found.add(profile.id);
      return { customers: profiles.map(customerSnapshot), events: rows.filter((r) => found.has(r.customer_id)).map(replayEvent) };
    };
    // One page read ahead: PostgreSQL (and the network) prepare the next page while the caller evaluates this one.
    let ahead = read();
    ahead.catch(() => undefined); // a failure is thrown by the next call to next(), not reported as unhandled
    return {
      next: async () => {
        const page = await ahead;
        if (page === null) return null;
        ahead = read();
        ahead.catch(() => undefined);
        // The driver writes the FETCH after a few awaits of its own: let it, before the caller's evaluation takes the thread.
        await new Promise((resolve) => setImmediate(resolve));
        return page;
      },
      close: async () => {
        await ahead.catch(() => undefined);
        await runner.query('ROLLBACK').catch(() => undefined);
        await runner.release();
      },
    };
  }
}

/** The replay's sort of a large range, in memory (one connection per running simulation). */
const REPLAY_WORK_MEM = '256MB';

/**
 * $1 organization, $2 from, $3 to, $4 customer ids (null: all). Through the organization's customers as well: for a
 * small organization PostgreSQL then reads its customers' events by their index instead of scanning the months (27
 * against 190 ms for 50 customers beside 1,000,000 events of another organization); a large one is joined by hash.
 */
const REPLAYED = `e.organization_id = $1 AND e.occurred_at >= $2 AND e.occurred_at <= $3
            AND e.customer_id IN (SELECT c.id FROM customers c WHERE c.organization_id = $1 AND c.erased_at IS NULL)
            AND e.status <> 'rejected' AND e.source <> 'perform'
            AND ($4::uuid[] IS NULL OR e.customer_id = ANY($4::uuid[]))`;

const BY_TIME = `SELECT e.customer_id, e.name, e.count, e.attributes, e.context, floor(extract(epoch FROM e.occurred_at) * 1000)::float8 AS at, e.qualify
           FROM events e WHERE ${REPLAYED}
          ORDER BY e.occurred_at, e.id`;

// The profile by its key for each customer in turn (OFFSET 0 keeps it a nested loop), so that the rows stream in the
// aggregate's order instead of being joined by hash and sorted again.
const BY_CUSTOMER = `SELECT ${PROFILE_COLUMNS}, h.events
           FROM (SELECT e.customer_id,
                        json_agg(json_build_array(e.name, e.count, e.attributes, e.context,
                                                  floor(extract(epoch FROM e.occurred_at) * 1000)::float8, e.qualify) ORDER BY e.occurred_at, e.id) AS events
                   FROM events e WHERE ${REPLAYED}
                  GROUP BY e.customer_id ORDER BY e.customer_id) h
           JOIN LATERAL (SELECT * FROM customers c WHERE c.id = h.customer_id AND c.organization_id = $1 AND c.erased_at IS NULL OFFSET 0) c ON true
          ORDER BY h.customer_id`;

const PROFILES = `SELECT ${PROFILE_COLUMNS} FROM customers c WHERE c.organization_id = $1 AND c.id = ANY($2::uuid[]) AND c.erased_at IS NULL`;

function historyEvents(row: HistoryRow): ReplayEvent[] {
  return row.events.map(([name, count, attributes, context, at, qualify]) =>
    replayEvent({ customer_id: row.id, name, count, attributes, context, at, qualify }),
  );
}

function replayEvent(row: ReplayRow): ReplayEvent {
  return { customerId: row.customer_id, qualify: row.qualify, instance: storedInstance(row, row.at) };
}
