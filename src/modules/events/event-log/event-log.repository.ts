import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { Statement } from '../../../common/database/unit-of-work.js';
import { EventRecord } from '../../../database/entities/event.entity.js';

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
 * (docs/decisions/0011-partitioned-event-log.md): an api key's submission by transaction id (reversals), and a
 * customer's events in a time range (simulations). Each costs the same whatever the log's size.
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
}
