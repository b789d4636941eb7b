import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { namedQuery } from '../../common/database/named-query.js';
import type { CustomerSnapshot, EvaluationResult, EventInstance, ProgressMap } from '../../engine/index.js';
import type { EventSource, EventStatus } from '../../database/entities/event.entity.js';
import { UUID } from '../../common/validation/uuid.js';
import type { WebhookOccurrence } from '../webhooks/occurrences.js';

export interface LockedCustomer {
  snapshot: CustomerSnapshot;
  externalId: string;
  rulesVersion: number;
  /** Progress rows of the behaviors asked for (`progressOf`), read with the customer. */
  progress: ProgressMap;
  progressOf: number[];
}

/** How a request names a customer. */
export type CustomerKey = { userId: string } | { externalId: string };

export interface EventRow {
  organizationId: number;
  apiKeyId: number;
  customerId: string | null;
  userRef: string | null;
  source: EventSource;
  transactionId: string | null;
  instance: EventInstance;
  divisionId: number | null;
  campaignId: number | null;
  status: EventStatus;
  reason: string | null;
  result: object | null;
  pointsEarned: number;
  requestId: string | null;
  /** Body `qualify: true`, kept for the worker when the event is stored to be processed later. */
  qualify?: boolean;
}

export interface NamedQuery {
  name: string;
  text: string;
  values: unknown[];
}

export interface WrittenIds {
  eventIds: string[];
  notificationIds: number[];
  /** Webhook deliveries written to the outbox, to queue once committed. */
  deliveryIds: string[];
}

export type WriteRow = { event_ids: string[]; notification_ids: string[] | null; delivery_ids: string[] | null };

export interface CustomerRow {
  id: string;
  external_id: string;
  time_zone: string;
  division_id: number;
  tags: string[];
  attributes: CustomerSnapshot['attributes'];
  available_points: string;
  lifetime_points: string;
  tier_id: number | null;
  qualified_campaign_ids: number[];
  completed_campaign_ids: number[];
  rules_version: string;
  progress: ProgressMap | null;
}


/** The SQL of event processing: one customer row locked, only the rows the engine needs read, changes written in bulk. */
@Injectable()
export class EventsRepository {
  /**
   * The customer with its organization's rules version and its progress in these behaviors, in one round trip;
   * `lock` holds the customer row (FOR NO KEY UPDATE: evaluations exclude each other, while inserts of rows that
   * reference the customer go on) until the transaction ends. Ask for progress only without the lock:
   * a locking read that waited sees the other tables as they were before the wait.
   */
  async customer(em: EntityManager, organizationId: number, key: CustomerKey, lock: boolean, behaviorIds: number[] = []): Promise<LockedCustomer | null> {
    const query = this.customerQuery(organizationId, key, lock, behaviorIds);
    return query ? this.parseCustomer(await namedQuery<CustomerRow>(em, query.name, query.text, query.values), behaviorIds) : null;
  }

  /** The query of customer(); null when the key cannot name a customer. Run it yourself to batch it with others. */
  customerQuery(organizationId: number, key: CustomerKey, lock: boolean, behaviorIds: number[] = []): NamedQuery | null {
    if ('userId' in key && !UUID.test(key.userId)) return null;
    const column = 'userId' in key ? 'c.id' : 'c.external_id';
    return {
      name: `customer-${'userId' in key ? 'id' : 'external'}${lock ? '-lock' : ''}`,
      text: `SELECT c.id, c.external_id, c.time_zone, c.division_id, c.tags, c.attributes, c.available_points, c.lifetime_points,
              c.tier_id, c.qualified_campaign_ids, c.completed_campaign_ids, o.rules_version,
              (SELECT json_object_agg(p.behavior_id, p.state) FROM customer_progress p
                WHERE p.customer_id = c.id AND p.behavior_id = ANY($3)) AS progress
         FROM customers c JOIN organizations o ON o.id = c.organization_id
        WHERE c.organization_id = $1 AND ${column} = $2${lock ? ' FOR NO KEY UPDATE OF c' : ''}`,
      values: [organizationId, 'userId' in key ? key.userId : key.externalId, behaviorIds],
    };
  }

  /**
   * Progress rows of these behaviors for the customer the key names, for batching right behind the locking read
   * (a later statement of the same batch: it reads after the lock is held, so it sees what the previous holder wrote).
   */
  progressByKeyQuery(organizationId: number, key: CustomerKey, behaviorIds: number[]): NamedQuery {
    return {
      name: `progress-by-${'userId' in key ? 'id' : 'external'}`,
      text: `SELECT p.behavior_id, p.state FROM customer_progress p JOIN customers c ON c.id = p.customer_id
              WHERE c.organization_id = $1 AND ${'userId' in key ? 'c.id' : 'c.external_id'} = $2 AND p.behavior_id = ANY($3)`,
      values: [organizationId, 'userId' in key ? key.userId : key.externalId, behaviorIds],
    };
  }

  parseProgress(rows: Array<{ behavior_id: number; state: ProgressMap[number] }>): ProgressMap {
    return Object.fromEntries(rows.map((r) => [r.behavior_id, r.state]));
  }

  parseCustomer(rows: CustomerRow[], behaviorIds: number[]): LockedCustomer | null {
    const row = rows[0];
    if (!row) return null;
    return {
      externalId: row.external_id,
      rulesVersion: Number(row.rules_version),
      progress: row.progress ?? {},
      progressOf: behaviorIds,
      snapshot: {
        id: row.id,
        timeZone: row.time_zone,
        divisionId: row.division_id,
        tags: row.tags,
        attributes: row.attributes,
        availablePoints: Number(row.available_points),
        lifetimePoints: Number(row.lifetime_points),
        tierId: row.tier_id,
        qualifiedCampaignIds: row.qualified_campaign_ids,
        completedCampaignIds: row.completed_campaign_ids,
      },
    };
  }

  async progress(em: EntityManager, customerId: string, behaviorIds: number[]): Promise<ProgressMap> {
    if (behaviorIds.length === 0) return {};
    const query = this.progressQuery(customerId, behaviorIds);
    return this.parseProgress(await namedQuery(em, query.name, query.text, query.values));
  }

  /** The query of progress(), to run yourself. */
  progressQuery(customerId: string, behaviorIds: number[]): NamedQuery {
    return {
      name: 'progress',
      text: `SELECT behavior_id, state FROM customer_progress WHERE customer_id = $1 AND behavior_id = ANY($2)`,
      values: [customerId, behaviorIds],
    };
  }

  /** Progress rows of several customers in these behaviors (rows of pairs that do not exist are simply absent). */
  progressOfManyQuery(customerIds: string[], behaviorIds: number[]): NamedQuery {
    return {
      name: 'progress-of-many',
      text: `SELECT customer_id, behavior_id, state FROM customer_progress WHERE customer_id = ANY($1::uuid[]) AND behavior_id = ANY($2::int[])`,
      values: [customerIds, behaviorIds],
    };
  }

  /** Inserts event rows in order; answers their ids. A repeated (api key, transaction id) raises 23505. */
  async insertEvents(em: EntityManager, rows: EventRow[]): Promise<string[]> {
    const ids: string[] = [];
    for (const r of rows) {
      const inserted: Array<{ id: string }> = await em.query(
        `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, transaction_id, name, count, attributes, context,
                             division_id, campaign_id, occurred_at, status, reason, result, points_earned, processed_at, request_id, qualify)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                 CASE WHEN $14 IN ('processed', 'rejected', 'stored') THEN now() END, $18, $19)
         RETURNING id`,
        [
          r.organizationId,
          r.apiKeyId,
          r.customerId,
          r.userRef,
          r.source,
          r.transactionId,
          r.instance.name,
          r.instance.count,
          JSON.stringify(r.instance.attributes),
          JSON.stringify(r.instance.context),
          r.divisionId,
          r.campaignId,
          new Date(r.instance.occurredAt),
          r.status,
          r.reason,
          r.result === null ? null : JSON.stringify(r.result),
          r.pointsEarned,
          r.requestId,
          r.qualify ?? false,
        ],
      );
      ids.push(inserted[0].id);
    }
    return ids;
  }

  async transactionUsed(em: EntityManager, apiKeyId: number, transactionId: string): Promise<boolean> {
    const rows = await em.query(`SELECT 1 FROM events WHERE api_key_id = $1 AND transaction_id = $2`, [apiKeyId, transactionId]);
    return rows.length > 0;
  }

  /**
   * Everything a synchronous evaluation writes, in one statement (one round trip): the event rows with their results,
   * the changed progress rows, the customer row, points ledger rows, issued offers and notifications. Answers the ids
   * of the events and of the notifications, in order. A repeated (api key, transaction id) raises 23505.
   */
  async writeEvaluation(em: EntityManager, rows: EventRow[], before: CustomerSnapshot, result: EvaluationResult, webhooks: WebhookOccurrence[] = []): Promise<WrittenIds> {
    const query = this.writeQuery(rows, before, result, webhooks);
    return this.parseWrite(await namedQuery<WriteRow>(em, query.name, query.text, query.values));
  }

  parseWrite([out]: WriteRow[]): WrittenIds {
    return { eventIds: out.event_ids, notificationIds: (out.notification_ids ?? []).map(Number), deliveryIds: out.delivery_ids ?? [] };
  }

  /** The statement of writeEvaluation(), to run yourself (batched with COMMIT). */
  writeQuery(rows: EventRow[], before: CustomerSnapshot, result: EvaluationResult, webhooks: WebhookOccurrence[] = []): NamedQuery {
    const first = rows[0];
    const head = `ev AS (
         INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, campaign_id, request_id, transaction_id, name, count,
                             attributes, context, division_id, occurred_at, status, reason, result, points_earned, processed_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, t.transaction_id, t.name, t.count, t.attributes, t.context, t.division_id, t.occurred_at,
                t.status, t.reason, t.result, t.points, now()
           FROM ROWS FROM (json_to_recordset($8::json) AS (transaction_id text, name text, count numeric, attributes jsonb, context jsonb,
                  division_id int, occurred_at timestamptz, status text, reason text, result jsonb, points int))
                WITH ORDINALITY AS t(transaction_id, name, count, attributes, context, division_id, occurred_at, status, reason, result, points, n)
          ORDER BY t.n
         RETURNING id
       ),
       evn AS (SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS idx FROM ev)`;
    const events = rows.map((r) => ({
      transaction_id: r.transactionId,
      name: r.instance.name,
      count: r.instance.count,
      attributes: r.instance.attributes,
      context: r.instance.context,
      division_id: r.divisionId,
      occurred_at: new Date(r.instance.occurredAt).toISOString(),
      status: r.status,
      reason: r.reason,
      result: r.result,
      points: r.pointsEarned,
    }));
    const headValues = [first.organizationId, first.apiKeyId, first.customerId, first.userRef, first.source, first.campaignId, first.requestId, JSON.stringify(events)];
    return outcomesQuery('write-evaluation', head, headValues, [{ organizationId: first.organizationId, before, result, firstIndex: 0, webhooks }]);
  }

  /**
   * What processing stored events writes, in one statement: the events marked with their results (by id; each
   * customer's events in the order evaluated, at its `firstIndex`), and every customer's outcome rows.
   */
  processedQuery(eventIds: string[], outcomes: EventOutcome[], customers: CustomerOutcome[]): NamedQuery {
    const head = `ev AS (
         UPDATE events e SET status = t.status, reason = t.reason, result = t.result, points_earned = t.points, processed_at = now(),
                attempts = e.attempts + 1
           FROM ROWS FROM (json_to_recordset($1::json) AS (id bigint, status text, reason text, result jsonb, points int))
                WITH ORDINALITY AS t(id, status, reason, result, points, n)
          WHERE e.id = t.id
         RETURNING e.id, (t.n - 1)::int AS idx
       ),
       evn AS (SELECT id, idx FROM ev)`;
    const events = outcomes.map((o, i) => ({ id: eventIds[i], status: o.status, reason: o.reason, result: o.result, points: o.pointsEarned }));
    return outcomesQuery('write-processed', head, [JSON.stringify(events)], customers);
  }
}

/** What evaluating one stored event made of it. */
export type EventOutcome = Pick<EventRow, 'status' | 'reason' | 'result' | 'pointsEarned'>;

/** One customer's evaluation in a write: its state before, the result, and where its events start in the statement's list. */
export interface CustomerOutcome {
  organizationId: number;
  before: CustomerSnapshot;
  result: EvaluationResult;
  /** The index, in the statement's event list, of the event the result's eventIndex 0 names. */
  firstIndex: number;
  /** The webhook events of this result (eventIndex and notificationIndex relative to it), written to the outbox. */
  webhooks?: WebhookOccurrence[];
}

/**
 * The webhook outbox CTEs, only in statements that have webhook events to write (organizations without webhooks run
 * the statement without them): one delivery per occurrence and subscribed webhook of the organization.
 */
const WEBHOOK_OUTBOX = `,
       ntn AS (SELECT id, row_number() OVER (ORDER BY id)::int AS n FROM nt),
       wh AS (
         INSERT INTO webhook_deliveries (organization_id, webhook_id, event_id, type, payload)
         SELECT w.organization_id, w.id, evn.id, t.type,
                jsonb_build_object('id', t.id, 'type', t.type, 'created_at', t.created_at,
                  'data', CASE WHEN t.notification_n IS NULL THEN t.data ELSE jsonb_build_object('id', ntn.id) || t.data END)
           FROM json_to_recordset($WEBHOOKS_PARAM::json) AS t(idx int, organization_id int, id text, type text, created_at text, notification_n int, data jsonb)
           JOIN evn ON evn.idx = t.idx
           LEFT JOIN ntn ON ntn.n = t.notification_n
           JOIN webhooks w ON w.organization_id = t.organization_id AND w.deleted_at IS NULL AND t.type = ANY(w.event_types)
          ORDER BY t.idx, w.id
         RETURNING id
       )`;

/**
 * One statement: `head` (CTEs named ev and evn, evn mapping each event's index in the list to its id) followed by
 * every customer's outcomes: progress upserts, customer rows, points ledger rows, issued offers, notifications and the
 * webhook outbox (one delivery per occurrence and subscribed webhook of the organization, fanned out here).
 * Data-modifying CTEs run to completion whether or not the final SELECT reads them. Row sets travel as one JSON
 * parameter each: one JSON.stringify instead of escaping every element of many array parameters.
 */
function outcomesQuery(name: string, head: string, headValues: unknown[], customers: CustomerOutcome[]): NamedQuery {
  const o = headValues.length; // $o+1 is the first parameter of the outcomes
  const $ = (i: number) => `$${o + i}`;
  const rows = <T>(each: (c: CustomerOutcome, who: { idx: (eventIndex: number) => number; organization_id: number; customer_id: string }) => T[]) =>
    customers.flatMap((c) => each(c, { idx: (i) => c.firstIndex + i, organization_id: c.organizationId, customer_id: c.result.customer.id }));
  const progress = rows(({ result }, { customer_id }) =>
    Object.entries(result.progress).map(([id, state]) => ({ customer_id, behavior_id: Number(id), state, achieved: state.achieved })),
  );
  const changed = customers
    .filter((c) => !sameCustomer(c.before, c.result.customer))
    .map(({ result: { customer: a } }) => ({
      id: a.id,
      available_points: a.availablePoints,
      lifetime_points: a.lifetimePoints,
      tier_id: a.tierId,
      tags: a.tags,
      qualified_campaign_ids: a.qualifiedCampaignIds,
      completed_campaign_ids: a.completedCampaignIds,
    }));
  const credits = rows(({ result }, { idx, ...who }) =>
    result.credits.map((c) => ({
      idx: idx(c.eventIndex),
      ...who,
      amount: c.amount,
      reason: c.reason,
      source: { campaign_id: c.campaignId, behavior_id: c.behaviorId, goal_id: c.goalId ?? null, offer_id: c.offerId ?? null },
    })),
  );
  const offers = rows(({ result }, { idx, ...who }) =>
    result.offersIssued.map((x) => ({ idx: idx(x.eventIndex), ...who, offer_id: x.offerId, campaign_id: x.campaignId, behavior_id: x.behaviorId, issued_at: new Date(x.at).toISOString() })),
  );
  const notifications = rows(({ result }, { idx, ...who }) =>
    result.notifications.map((n) => ({ idx: idx(n.eventIndex), ...who, creative_id: n.creativeId, campaign_id: n.campaignId, behavior_id: n.behaviorId, type: n.type, data: n.data })),
  );
  // notification_n: the notification's ordinal (from 1) among every notification of the statement, as nt inserts them.
  let notificationsBefore = 0;
  const webhooks = customers.flatMap((c) => {
    const offset = notificationsBefore;
    notificationsBefore += c.result.notifications.length;
    return (c.webhooks ?? []).map((w) => ({
      idx: c.firstIndex + w.eventIndex,
      organization_id: c.organizationId,
      id: w.id,
      type: w.type,
      created_at: w.created_at,
      notification_n: w.notificationIndex === null ? null : offset + w.notificationIndex + 1,
      data: w.data,
    }));
  });
  const text = `WITH ${head},
       pr AS (
         INSERT INTO customer_progress (customer_id, behavior_id, state, achieved, updated_at)
         SELECT t.customer_id, t.behavior_id, t.state, t.achieved, now() FROM json_to_recordset(${$(1)}::json) AS t(customer_id uuid, behavior_id int, state jsonb, achieved int)
         ON CONFLICT (customer_id, behavior_id) DO UPDATE SET state = EXCLUDED.state, achieved = EXCLUDED.achieved, updated_at = now()
         RETURNING 1
       ),
       cu AS (
         UPDATE customers c SET available_points = t.available_points, lifetime_points = t.lifetime_points, tier_id = t.tier_id, tags = t.tags,
                qualified_campaign_ids = t.qualified_campaign_ids, completed_campaign_ids = t.completed_campaign_ids, updated_at = now()
           FROM json_to_recordset(${$(2)}::json) AS t(id uuid, available_points bigint, lifetime_points bigint, tier_id int, tags text[],
                qualified_campaign_ids int[], completed_campaign_ids int[])
          WHERE c.id = ANY(${$(6)}::uuid[]) AND c.id = t.id -- the id list makes the plan an index lookup, not a scan of customers
         RETURNING 1
       ),
       lg AS (
         INSERT INTO points_ledger (organization_id, customer_id, event_id, amount, reason, source)
         SELECT t.organization_id, t.customer_id, evn.id, t.amount, t.reason, t.source
           FROM json_to_recordset(${$(3)}::json) AS t(idx int, organization_id int, customer_id uuid, amount int, reason text, source jsonb)
           JOIN evn ON evn.idx = t.idx
         RETURNING 1
       ),
       co AS (
         INSERT INTO customer_offers (organization_id, customer_id, offer_id, campaign_id, behavior_id, event_id, issued_at)
         SELECT t.organization_id, t.customer_id, t.offer_id, t.campaign_id, t.behavior_id, evn.id, t.issued_at
           FROM json_to_recordset(${$(4)}::json)
                AS t(idx int, organization_id int, customer_id uuid, offer_id int, campaign_id int, behavior_id int, issued_at timestamptz)
           JOIN evn ON evn.idx = t.idx
         RETURNING 1
       ),
       nt AS (
         INSERT INTO notifications (organization_id, customer_id, event_id, creative_id, campaign_id, behavior_id, type, data)
         SELECT t.organization_id, t.customer_id, evn.id, t.creative_id, t.campaign_id, t.behavior_id, t.type, t.data
           FROM ROWS FROM (json_to_recordset(${$(5)}::json)
                AS (idx int, organization_id int, customer_id uuid, creative_id int, campaign_id int, behavior_id int, type text, data jsonb))
                WITH ORDINALITY AS t(idx, organization_id, customer_id, creative_id, campaign_id, behavior_id, type, data, n)
           JOIN evn ON evn.idx = t.idx
          ORDER BY t.n
         RETURNING id
       )${webhooks.length ? WEBHOOK_OUTBOX.replace('$WEBHOOKS_PARAM', () => $(7)) : ''}
       SELECT (SELECT array_agg(id ORDER BY id) FROM ev) AS event_ids, (SELECT array_agg(id ORDER BY id) FROM nt) AS notification_ids,
              ${webhooks.length ? '(SELECT array_agg(id ORDER BY id) FROM wh)' : 'NULL::bigint[]'} AS delivery_ids`;
  const values = [
    ...headValues,
    ...[progress, changed, credits, offers, notifications].map((list) => JSON.stringify(list)),
    changed.map((c) => c.id),
    ...(webhooks.length ? [JSON.stringify(webhooks)] : []),
  ];
  // Two statements of their own (each prepared once per connection): with the outbox, and without it.
  return { name: webhooks.length ? `${name}-webhooks` : name, text, values };
}

function sameCustomer(a: CustomerSnapshot, b: CustomerSnapshot): boolean {
  const same = (x: unknown[], y: unknown[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return (
    a.availablePoints === b.availablePoints &&
    a.lifetimePoints === b.lifetimePoints &&
    a.tierId === b.tierId &&
    same(a.tags, b.tags) &&
    same(a.qualifiedCampaignIds, b.qualifiedCampaignIds) &&
    same(a.completedCampaignIds, b.completedCampaignIds)
  );
}
