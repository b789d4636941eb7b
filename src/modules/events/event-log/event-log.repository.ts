import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Queryable, Statement } from '../../../common/database/unit-of-work.js';
import { EventRecord } from '../../../database/entities/event.entity.js';
import type { EventInstance } from '../../../engine/index.js';

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

/** Pages of a replay's events, all read in one snapshot; `db` reads more in that snapshot. Close it when done. */
export interface ReplayStream {
  next(): Promise<ReplayEvent[]>;
  db: Queryable;
  close(): Promise<void>;
}

interface ReplayRow {
  customer_id: string;
  name: string;
  count: string;
  attributes: Record<string, unknown>;
  context: EventInstance['context'];
  at: number;
  qualify: boolean;
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
   * by id. A server-side cursor in a read-only REPEATABLE READ transaction on a connection of its own: pages of
   * `pageSize` rows, never the whole range in memory, and every page (and `db`) from one snapshot, so that events
   * stored during the replay do not change it.
   */
  async replay(scope: ReplayScope, pageSize: number): Promise<ReplayStream> {
    const runner = this.db.createQueryRunner();
    await runner.connect();
    try {
      await runner.query(`BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`);
      await runner.query(
        `DECLARE replay NO SCROLL CURSOR FOR
         SELECT e.customer_id, e.name, e.count, e.attributes, e.context, floor(extract(epoch FROM e.occurred_at) * 1000)::float8 AS at, e.qualify
           FROM events e
          WHERE e.organization_id = $1 AND e.occurred_at >= $2 AND e.occurred_at <= $3
            AND e.customer_id IS NOT NULL AND e.status <> 'rejected' AND e.source <> 'perform'
            AND ($4::uuid[] IS NULL OR e.customer_id = ANY($4::uuid[]))
          ORDER BY ${scope.order === 'customer' ? 'e.customer_id, ' : ''}e.occurred_at, e.id`,
        [scope.organizationId, scope.from, scope.to, scope.customerIds],
      );
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined); // never back to the pool inside a failed transaction
      await runner.release();
      throw error;
    }
    return {
      db: runner,
      next: async () => ((await runner.query(`FETCH ${Number(pageSize)} FROM replay`)) as ReplayRow[]).map(replayEvent),
      close: async () => {
        await runner.query('ROLLBACK').catch(() => undefined);
        await runner.release();
      },
    };
  }
}

function replayEvent(row: ReplayRow): ReplayEvent {
  return {
    customerId: row.customer_id,
    qualify: row.qualify,
    instance: {
      name: row.name,
      count: Number(row.count),
      attributes: row.attributes,
      context: row.context,
      occurredAt: row.at,
      day: typeof row.attributes.occurred_on === 'string' ? row.attributes.occurred_on : null,
    },
  };
}
