import { Injectable } from '@nestjs/common';
import type { Queryable, UnitOfWork } from '../../common/database/unit-of-work.js';
import { AppError } from '../../common/errors/app-error.js';
import { UUID } from '../../common/validation/uuid.js';
import type { BudgetLeft, CustomerSnapshot, EventInstance, ExperimentAssignment, ProgressMap, TierFact } from '../../engine/index.js';
import type { NewEventRow, WritePlan } from './write-plan.js';
import { EVENTS_BY_KEY, eventsByKeyParams, occurredKey, type EventKey } from './event-keys.js';
import { TierFacts } from '../customers-state/index.js';
import { domainRowsStatements, storePendingStatement, writeStatement, type WrittenRow } from './write-statement.js';

/** How a request names a customer. */
export type CustomerKey = { userId: string } | { externalId: string };

/** A customer as the event path reads it (locked or not), with its organization's rules version. */
export interface LoadedCustomer {
  snapshot: CustomerSnapshot;
  externalId: string;
  rulesVersion: number;
}

/** A stored event still pending, as the events worker reads it. */
export interface PendingEvent {
  key: EventKey;
  organizationId: number;
  /** Null when the event names no customer of the organization (it is rejected, customer_not_found). */
  customerId: string | null;
  campaignId: number | null;
  instance: EventInstance;
  qualify: boolean;
  multiOrgEnabled: boolean;
  storedAt: Date;
}

/** Ids the write produced, each in order. */
export interface Written {
  eventIds: string[];
  notificationIds: number[];
  /** Webhook deliveries written to the outbox, to queue once committed. */
  deliveryIds: string[];
  /** Rewards' after-commit effects written to their outbox, to queue once committed. */
  effectIds: string[];
}

/** A V1 `transaction_id` already used under the api key (contract §2, 409). */
export class DuplicateTransaction extends AppError {
  constructor(transactionId: string) {
    super('duplicate_transaction', `transaction_id ${transactionId} has already been processed`);
  }
}

/**
 * A write whose completions did not fit a campaign budget any more (another transaction used the room first): it was
 * rolled back, and the evaluation runs again with these campaigns' budgets locked (retryOnBudget).
 */
export class BudgetExceeded extends Error {
  constructor(readonly campaignIds: number[]) {
    super('a campaign budget had no room for the completions');
  }
}

/** A customer's profile as evaluations read it (PROFILE_COLUMNS). */
export interface ProfileRow {
  id: string;
  external_id: string;
  time_zone: string;
  division_id: number;
  tags: string[];
  attributes: CustomerSnapshot['attributes'];
  available_points: string;
  lifetime_points: string;
  tier_id: number | null;
  tier_floor_id: number | null;
  tier_review_at: Date | null;
  qualified_campaign_ids: number[];
  completed_campaign_ids: number[];
}

interface CustomerRow extends ProfileRow {
  rules_version: string;
}

/** The columns of ProfileRow, from `customers c`. */
export const PROFILE_COLUMNS = `c.id, c.external_id, c.time_zone, c.division_id, c.tags, c.attributes, c.available_points, c.lifetime_points,
              c.tier_id, c.tier_floor_id, c.tier_review_at, c.qualified_campaign_ids, c.completed_campaign_ids`;
const CUSTOMER_COLUMNS = `${PROFILE_COLUMNS}, o.rules_version`;

/**
 * Every statement of the event path: customers read and locked, progress read, pending events read, the write of an
 * evaluation. Each method runs its statements on the unit of work it is given and answers typed rows; statements
 * asked for together (Promise.all) share one round trip. Locks are FOR NO KEY UPDATE: evaluations of one customer
 * exclude each other, while inserts of rows that reference the customer go on. docs/queries/event-path.sql prints them.
 */
@Injectable()
export class EvaluationRepository {
  constructor(private readonly facts: TierFacts) {}

  /** The customer the key names (null when none); `lock` holds its row until the transaction ends. */
  async customer(uow: UnitOfWork, organizationId: number, key: CustomerKey, lock: boolean): Promise<LoadedCustomer | null> {
    if ('userId' in key && !UUID.test(key.userId)) return null;
    const rows = await uow.run<CustomerRow>({
      name: `customer-by-${'userId' in key ? 'id' : 'external-id'}${lock ? '-locked' : ''}`,
      text: `SELECT ${CUSTOMER_COLUMNS}
         FROM customers c JOIN organizations o ON o.id = c.organization_id
        WHERE c.organization_id = $1 AND ${'userId' in key ? 'c.id' : 'c.external_id'} = $2 AND c.erased_at IS NULL${lock ? '\n          FOR NO KEY UPDATE OF c' : ''}`,
      values: [organizationId, keyValue(key)],
    });
    return rows[0] ? loadedCustomer(rows[0]) : null;
  }

  /**
   * Progress in these behaviors of the customer the key names. Asked for together with the locking read of
   * customer(), it runs once the lock is held (a later statement), so it sees what the previous holder committed.
   */
  async progressByKey(uow: UnitOfWork, organizationId: number, key: CustomerKey, behaviorIds: number[]): Promise<ProgressMap> {
    if (behaviorIds.length === 0 || ('userId' in key && !UUID.test(key.userId))) return {};
    const rows = await uow.run<ProgressRow>({
      name: `progress-by-${'userId' in key ? 'id' : 'external-id'}`,
      text: `SELECT p.customer_id, p.behavior_id, p.state FROM customer_progress p JOIN customers c ON c.id = p.customer_id
        WHERE c.organization_id = $1 AND ${'userId' in key ? 'c.id' : 'c.external_id'} = $2 AND p.behavior_id = ANY($3)`,
      values: [organizationId, keyValue(key), behaviorIds],
    });
    return progressMap(rows);
  }

  /**
   * The qualifying facts of the customer the key names, under a period tier policy (§17): see tierFacts(). Asked for
   * with the locking read of customer(), it runs once the lock is held.
   */
  tierFactsByKey(uow: UnitOfWork, organizationId: number, key: CustomerKey, timeZone: string): Promise<TierFact[]> {
    if ('userId' in key && !UUID.test(key.userId)) return Promise.resolve([]);
    // By id, the customer read beside it checks the organization (another's customer answers 404, its facts unused).
    return this.facts.ofCustomer(uow, organizationId, key, timeZone);
  }

  /**
   * The experiment assignments of the customer the key names (contract §20), by campaign id. Asked for with the
   * locking read of customer(), it runs once the lock is held.
   */
  async experimentsByKey(uow: UnitOfWork, organizationId: number, key: CustomerKey): Promise<Record<number, ExperimentAssignment>> {
    if ('userId' in key && !UUID.test(key.userId)) return {};
    const rows = await uow.run<AssignmentRow>({
      name: `experiments-by-${'userId' in key ? 'id' : 'external-id'}`,
      text: `SELECT ${ASSIGNMENT_COLUMNS} FROM experiment_assignments a JOIN customers c ON c.id = a.customer_id
        WHERE c.organization_id = $1 AND ${'userId' in key ? 'c.id' : 'c.external_id'} = $2`,
      values: [organizationId, keyValue(key)],
    });
    return assignmentsOf(rows).get(rows[0]?.customer_id) ?? {};
  }

  /** Several customers' experiment assignments, by customer and campaign id. */
  async experiments(uow: UnitOfWork, customerIds: string[]): Promise<Map<string, Record<number, ExperimentAssignment>>> {
    if (customerIds.length === 0) return new Map();
    const rows = await uow.run<AssignmentRow>({
      name: 'experiments',
      text: `SELECT ${ASSIGNMENT_COLUMNS} FROM experiment_assignments a WHERE a.customer_id = ANY($1::uuid[])`,
      values: [customerIds],
    });
    return assignmentsOf(rows);
  }

  /** Customers' qualifying facts under a period tier policy (§17), by customer (TierFacts). */
  tierFacts(db: Queryable, customerIds: string[], timeZone: string): Promise<Map<string, TierFact[]>> {
    return this.facts.of(db, customerIds, timeZone);
  }

  /**
   * What is left of these campaigns' budgets (contract §14; null: no limit on that side). `lock` holds their rows
   * until the transaction ends, in id order: what it answers is then exact, and no other completion can use it first.
   */
  async budgets(uow: UnitOfWork, campaignIds: number[], lock: boolean): Promise<Record<number, BudgetLeft>> {
    if (campaignIds.length === 0) return {};
    const rows = await uow.run<{ id: number; completions: number | null; points: string | null }>({
      name: lock ? 'campaign-budgets-locked' : 'campaign-budgets',
      text: `SELECT id, budget_max_completions - budget_completions AS completions, budget_max_points - budget_points AS points
         FROM campaigns WHERE id = ANY($1::int[])${lock ? '\n        ORDER BY id FOR NO KEY UPDATE' : ''}`,
      values: [campaignIds],
    });
    return Object.fromEntries(rows.map((r) => [r.id, { completions: r.completions, points: r.points === null ? null : Number(r.points) }]));
  }

  /** Progress rows of several customers in these behaviors, by customer (pairs without a row are absent). */
  async progress(uow: UnitOfWork, customerIds: string[], behaviorIds: number[]): Promise<Map<string, ProgressMap>> {
    const byCustomer = new Map<string, ProgressMap>();
    if (customerIds.length === 0 || behaviorIds.length === 0) return byCustomer;
    const rows = await uow.run<ProgressRow>({
      name: 'progress',
      text: `SELECT customer_id, behavior_id, state FROM customer_progress WHERE customer_id = ANY($1::uuid[]) AND behavior_id = ANY($2::int[])`,
      values: [customerIds, behaviorIds],
    });
    for (const row of rows) byCustomer.set(row.customer_id, { ...byCustomer.get(row.customer_id), [row.behavior_id]: row.state });
    return byCustomer;
  }

  /**
   * Locks the customers of the job's events that are still pending, in id order (so workers never deadlock); with
   * `skipLocked`, only those no other transaction holds (answered; the others are not waited for). Asked for together
   * with jobEvents(), which runs once the locks are held.
   */
  async lockCustomersOfEvents(uow: UnitOfWork, keys: EventKey[], skipLocked = false): Promise<LoadedCustomer[]> {
    const rows = await uow.run<CustomerRow>({
      text: `WITH job AS MATERIALIZED (${EVENTS_BY_KEY})
       SELECT ${CUSTOMER_COLUMNS}
         FROM customers c JOIN organizations o ON o.id = c.organization_id
        WHERE c.id IN (SELECT customer_id FROM job WHERE status = 'pending') AND c.erased_at IS NULL
        ORDER BY c.id
          FOR NO KEY UPDATE OF c${skipLocked ? ' SKIP LOCKED' : ''}`,
      values: eventsByKeyParams(keys),
    });
    return rows.map(loadedCustomer);
  }

  /**
   * The job's events still pending, by customer and time; an event without a customer has customerId null (asked for
   * after the locks: it sees what earlier holders committed).
   */
  async jobEvents(uow: UnitOfWork, keys: EventKey[]): Promise<PendingEvent[]> {
    const rows = await uow.run<PendingRow>({
      text: `WITH job AS MATERIALIZED (${EVENTS_BY_KEY})
       SELECT e.id, ${occurredKey('e.occurred_at')} AS occurred_key, e.organization_id, e.customer_id, e.campaign_id, e.name, e.count, e.attributes,
              e.context, e.occurred_at, e.qualify, e.created_at, o.multi_org_enabled
         FROM job e JOIN organizations o ON o.id = e.organization_id
        WHERE e.status = 'pending'
        ORDER BY e.customer_id, e.occurred_at, e.id`,
      values: eventsByKeyParams(keys),
    });
    return rows.map((r) => ({
      key: { id: String(r.id), occurredAt: r.occurred_key },
      organizationId: r.organization_id,
      customerId: r.customer_id,
      campaignId: r.campaign_id,
      qualify: r.qualify,
      multiOrgEnabled: r.multi_org_enabled,
      storedAt: r.created_at,
      instance: storedInstance(r, r.occurred_at.getTime()),
    }));
  }

  /** The keys of these events, by id alone: for jobs queued before jobs named their events' times (a scan of every month). */
  async keysOf(db: Queryable, eventIds: string[]): Promise<EventKey[]> {
    const rows = (await db.query(`SELECT id, ${occurredKey('occurred_at')} AS occurred_key FROM events WHERE id = ANY($1) ORDER BY id`, [eventIds])) as Array<{
      id: string;
      occurred_key: string;
    }>;
    return rows.map((r) => ({ id: String(r.id), occurredAt: r.occurred_key }));
  }

  /** True when the api key has already used the transaction id (read_only's check; writes claim it in event_transactions). */
  async transactionUsed(uow: UnitOfWork, apiKeyId: number, transactionId: string): Promise<boolean> {
    const rows = await uow.run({
      name: 'transaction-used',
      text: `SELECT 1 FROM event_transactions WHERE api_key_id = $1 AND transaction_id = $2`,
      values: [apiKeyId, transactionId],
    });
    return rows.length > 0;
  }

  /** Writes the plan in one statement (see write-statement.ts); a repeated transaction id raises DuplicateTransaction. */
  async write(uow: UnitOfWork, plan: WritePlan): Promise<Written> {
    // A domain action's rows and the write statement are sent in one tick, one behind the other: the COMMIT that
    // CustomerTransaction.commitWith sends right after comes behind all of them, and a failure of any rolls back all.
    const domainRows = (plan.rows ?? []).flatMap((r) => domainRowsStatements(r.table, r.rows)).map((statement) => uow.run(statement));
    const statement = uow.run<WrittenRow>(writeStatement(plan)).catch(writeFailure(plan));
    if (domainRows.length) {
      await Promise.all(domainRows).catch(async (error: unknown) => {
        await statement.catch(() => undefined);
        throw error;
      });
    }
    const [row] = await statement;
    return {
      eventIds: row.event_ids.map(String),
      notificationIds: (row.notification_ids ?? []).map(Number),
      deliveryIds: (row.delivery_ids ?? []).map(String),
      effectIds: (row.effect_ids ?? []).map(String),
    };
  }

  /** Stores events pending (V1 async=true); answers their keys in order. */
  async storePending(uow: UnitOfWork, rows: NewEventRow[]): Promise<EventKey[]> {
    const [row] = await uow.run<{ event_ids: string[]; occurred_keys: string[] }>(storePendingStatement(rows)).catch(duplicateOf({ insert: rows }));
    return row.event_ids.map((id, i) => ({ id: String(id), occurredAt: row.occurred_keys[i] }));
  }

  /** Events whose job ran out of attempts: `failed` with the error, until replayed (those still pending). */
  async markFailed(db: Queryable, keys: EventKey[], reason: string): Promise<void> {
    // The status is compared with the job's row (a join condition, checked again on a row another transaction changed
    // meanwhile), not with a constant: see EVENTS_BY_KEY.
    await db.query(
      `WITH job AS MATERIALIZED (${EVENTS_BY_KEY})
       UPDATE events e SET status = 'failed', reason = $5
         FROM job j
        WHERE e.id = j.id AND e.occurred_at = j.occurred_at AND e.occurred_at BETWEEN $3::timestamptz AND $4::timestamptz
          AND j.status = 'pending' AND e.status = j.status`,
      [...eventsByKeyParams(keys), reason.slice(0, 500)],
    );
  }

  /** The job's events still pending, one list per customer (in occurred_at order). */
  async pendingByCustomer(db: Queryable, keys: EventKey[]): Promise<EventKey[][]> {
    const rows = (await db.query(
      `WITH job AS MATERIALIZED (${EVENTS_BY_KEY})
       SELECT array_agg(id ORDER BY occurred_at, id) AS ids, array_agg(${occurredKey('occurred_at')} ORDER BY occurred_at, id) AS times FROM job
        WHERE status = 'pending' AND customer_id IS NOT NULL GROUP BY customer_id ORDER BY min(id)`,
      eventsByKeyParams(keys),
    )) as Array<{ ids: string[]; times: string[] }>;
    return rows.map((r) => r.ids.map((id, i) => ({ id: String(id), occurredAt: r.times[i] })));
  }
}

interface ProgressRow {
  customer_id: string;
  behavior_id: number;
  state: ProgressMap[number];
}

interface PendingRow {
  id: string;
  occurred_key: string;
  organization_id: number;
  customer_id: string | null;
  campaign_id: number | null;
  name: string;
  count: string;
  attributes: Record<string, unknown>;
  context: EventInstance['context'];
  occurred_at: Date;
  qualify: boolean;
  multi_org_enabled: boolean;
  created_at: Date;
}

function keyValue(key: CustomerKey): string {
  return 'userId' in key ? key.userId : key.externalId;
}

function progressMap(rows: ProgressRow[]): ProgressMap {
  return Object.fromEntries(rows.map((r) => [r.behavior_id, r.state]));
}

function loadedCustomer(row: CustomerRow): LoadedCustomer {
  return { externalId: row.external_id, rulesVersion: Number(row.rules_version), snapshot: customerSnapshot(row) };
}

/** A stored event as the engine evaluates it: `occurred_on`, when the request gave one, is the customer-local day. */
export function storedInstance(row: Pick<EventInstance, 'name' | 'attributes' | 'context'> & { count: string | number }, occurredAt: number): EventInstance {
  const day = row.attributes.occurred_on;
  return { name: row.name, count: Number(row.count), attributes: row.attributes, context: row.context, occurredAt, day: typeof day === 'string' ? day : null };
}

export function customerSnapshot(row: ProfileRow): CustomerSnapshot {
  return {
    id: row.id,
    timeZone: row.time_zone,
    divisionId: row.division_id,
    tags: row.tags,
    attributes: row.attributes,
    availablePoints: Number(row.available_points),
    lifetimePoints: Number(row.lifetime_points),
    tierId: row.tier_id,
    tierFloorId: row.tier_floor_id,
    tierReviewAt: row.tier_review_at === null ? null : row.tier_review_at.getTime(),
    qualifiedCampaignIds: row.qualified_campaign_ids,
    completedCampaignIds: row.completed_campaign_ids,
  };
}

/** A unique violation of (api key, transaction id) as DuplicateTransaction naming the request's transaction id. */
function duplicateOf(events: WritePlan['events']) {
  return (error: unknown): never => {
    const driver = error as { code?: string; constraint?: string } | null;
    if (driver?.code === '23505' && driver.constraint === 'event_transactions_pkey' && 'insert' in events) {
      const used = events.insert.find((e) => e.transaction_id !== null)?.transaction_id;
      if (used) throw new DuplicateTransaction(used);
    }
    throw error;
  };
}

/** A write's failure as the pipeline acts on it: a used transaction id, or a campaign budget without room (BE001). */
function writeFailure(plan: WritePlan) {
  const duplicate = duplicateOf(plan.events);
  return (error: unknown): never => {
    if ((error as { code?: string } | null)?.code === 'BE001') throw new BudgetExceeded(plan.budgets.use.map((u) => u.campaign_id));
    return duplicate(error);
  };
}

interface AssignmentRow {
  customer_id: string;
  campaign_id: number;
  group_name: string;
  assigned_at: Date;
  metric_sum: string;
  metric_events: number;
}

const ASSIGNMENT_COLUMNS = 'a.customer_id, a.campaign_id, a.group_name, a.assigned_at, a.metric_sum, a.metric_events';

function assignmentsOf(rows: AssignmentRow[]): Map<string, Record<number, ExperimentAssignment>> {
  const byCustomer = new Map<string, Record<number, ExperimentAssignment>>();
  for (const r of rows) {
    const own = byCustomer.get(r.customer_id) ?? {};
    own[r.campaign_id] = { group: r.group_name, assignedAt: r.assigned_at.getTime(), metricSum: Number(r.metric_sum), metricEvents: r.metric_events };
    byCustomer.set(r.customer_id, own);
  }
  return byCustomer;
}
