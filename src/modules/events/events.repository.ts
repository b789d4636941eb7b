import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { CustomerSnapshot, EvaluationResult, EventInstance, ProgressMap } from '../../engine/index.js';
import type { EventSource, EventStatus } from '../../database/entities/event.entity.js';

export interface LockedCustomer {
  snapshot: CustomerSnapshot;
  externalId: string;
  rulesVersion: number;
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
}

interface CustomerRow {
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
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The SQL of event processing: one customer row locked, only the rows the engine needs read, changes written in bulk. */
@Injectable()
export class EventsRepository {
  /** The customer with its organization's rules version; `lock` holds the row (FOR UPDATE) until the transaction ends. */
  async customer(em: EntityManager, organizationId: number, key: CustomerKey, lock: boolean): Promise<LockedCustomer | null> {
    if ('userId' in key && !UUID.test(key.userId)) return null;
    const column = 'userId' in key ? 'c.id' : 'c.external_id';
    const rows: CustomerRow[] = await em.query(
      `SELECT c.id, c.external_id, c.time_zone, c.division_id, c.tags, c.attributes, c.available_points, c.lifetime_points,
              c.tier_id, c.qualified_campaign_ids, c.completed_campaign_ids, o.rules_version
         FROM customers c JOIN organizations o ON o.id = c.organization_id
        WHERE c.organization_id = $1 AND ${column} = $2${lock ? ' FOR UPDATE OF c' : ''}`,
      [organizationId, 'userId' in key ? key.userId : key.externalId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      externalId: row.external_id,
      rulesVersion: Number(row.rules_version),
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
    const rows: Array<{ behavior_id: number; state: ProgressMap[number] }> = await em.query(
      `SELECT behavior_id, state FROM customer_progress WHERE customer_id = $1 AND behavior_id = ANY($2)`,
      [customerId, behaviorIds],
    );
    return Object.fromEntries(rows.map((r) => [r.behavior_id, r.state]));
  }

  async saveProgress(em: EntityManager, customerId: string, progress: ProgressMap): Promise<void> {
    const ids = Object.keys(progress).map(Number);
    if (ids.length === 0) return;
    await em.query(
      `INSERT INTO customer_progress (customer_id, behavior_id, state, achieved, updated_at)
       SELECT $1, t.behavior_id, t.state, t.achieved, now() FROM unnest($2::int[], $3::jsonb[], $4::int[]) AS t(behavior_id, state, achieved)
       ON CONFLICT (customer_id, behavior_id) DO UPDATE SET state = EXCLUDED.state, achieved = EXCLUDED.achieved, updated_at = now()`,
      [customerId, ids, ids.map((id) => JSON.stringify(progress[id])), ids.map((id) => progress[id].achieved)],
    );
  }

  /** Writes what the evaluation changed on the customer row, if anything. */
  async saveCustomer(em: EntityManager, before: CustomerSnapshot, after: CustomerSnapshot): Promise<void> {
    const same = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((v, i) => v === b[i]);
    if (
      before.availablePoints === after.availablePoints &&
      before.lifetimePoints === after.lifetimePoints &&
      before.tierId === after.tierId &&
      same(before.tags, after.tags) &&
      same(before.qualifiedCampaignIds, after.qualifiedCampaignIds) &&
      same(before.completedCampaignIds, after.completedCampaignIds)
    ) {
      return;
    }
    await em.query(
      `UPDATE customers SET available_points = $2, lifetime_points = $3, tier_id = $4, tags = $5, qualified_campaign_ids = $6,
              completed_campaign_ids = $7, updated_at = now()
        WHERE id = $1`,
      [after.id, after.availablePoints, after.lifetimePoints, after.tierId, after.tags, after.qualifiedCampaignIds, after.completedCampaignIds],
    );
  }

  /** Inserts event rows in order; answers their ids. A repeated (api key, transaction id) raises 23505. */
  async insertEvents(em: EntityManager, rows: EventRow[]): Promise<string[]> {
    const ids: string[] = [];
    for (const r of rows) {
      const inserted: Array<{ id: string }> = await em.query(
        `INSERT INTO events (organization_id, api_key_id, customer_id, user_ref, source, transaction_id, name, count, attributes, context,
                             division_id, campaign_id, occurred_at, status, reason, result, points_earned, processed_at, request_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                 CASE WHEN $14 IN ('processed', 'rejected', 'stored') THEN now() END, $18)
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

  /** Points ledger rows, issued offers and notifications of an evaluation; answers the notifications' ids in order. */
  async saveOutcomes(em: EntityManager, organizationId: number, customerId: string, result: EvaluationResult, eventIds: string[]): Promise<number[]> {
    if (result.credits.length) {
      await em.query(
        `INSERT INTO points_ledger (organization_id, customer_id, event_id, amount, reason, source)
         SELECT $1, $2, t.event_id, t.amount, t.reason, t.source
           FROM unnest($3::bigint[], $4::int[], $5::text[], $6::jsonb[]) AS t(event_id, amount, reason, source)`,
        [
          organizationId,
          customerId,
          result.credits.map((c) => eventIds[c.eventIndex] ?? null),
          result.credits.map((c) => c.amount),
          result.credits.map((c) => c.reason),
          result.credits.map((c) =>
            JSON.stringify({ campaign_id: c.campaignId, behavior_id: c.behaviorId, goal_id: c.goalId ?? null, offer_id: c.offerId ?? null }),
          ),
        ],
      );
    }
    if (result.offersIssued.length) {
      await em.query(
        `INSERT INTO customer_offers (organization_id, customer_id, offer_id, campaign_id, behavior_id, event_id, issued_at)
         SELECT $1, $2, t.offer_id, t.campaign_id, t.behavior_id, t.event_id, t.issued_at
           FROM unnest($3::int[], $4::int[], $5::int[], $6::bigint[], $7::timestamptz[]) AS t(offer_id, campaign_id, behavior_id, event_id, issued_at)
           JOIN offers o ON o.id = t.offer_id`,
        [
          organizationId,
          customerId,
          result.offersIssued.map((o) => o.offerId),
          result.offersIssued.map((o) => o.campaignId),
          result.offersIssued.map((o) => o.behaviorId),
          result.offersIssued.map((o) => eventIds[o.eventIndex] ?? null),
          result.offersIssued.map((o) => new Date(o.at)),
        ],
      );
    }
    if (result.notifications.length === 0) return [];
    const rows: Array<{ id: string }> = await em.query(
      `INSERT INTO notifications (organization_id, customer_id, event_id, creative_id, campaign_id, behavior_id, type, data)
       SELECT $1, $2, t.event_id, t.creative_id, t.campaign_id, t.behavior_id, t.type, t.data
         FROM unnest($3::bigint[], $4::int[], $5::int[], $6::int[], $7::text[], $8::jsonb[])
              WITH ORDINALITY AS t(event_id, creative_id, campaign_id, behavior_id, type, data, n)
        ORDER BY t.n
       RETURNING id`,
      [
        organizationId,
        customerId,
        result.notifications.map((n) => eventIds[n.eventIndex] ?? null),
        result.notifications.map((n) => n.creativeId),
        result.notifications.map((n) => n.campaignId),
        result.notifications.map((n) => n.behaviorId),
        result.notifications.map((n) => n.type),
        result.notifications.map((n) => JSON.stringify(n.data)),
      ],
    );
    return rows.map((r) => Number(r.id));
  }
}
