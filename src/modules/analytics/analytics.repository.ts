import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { StoredGoalGroup } from '../../database/entities/behavior.entity.js';

/** A day's counters of the campaign (behavior 0) or of one behavior, summed over the shards. */
export interface DailyRow {
  day: number;
  behavior_id: number;
  events: number;
  participants: number;
  achievements: number;
  points_credited: number;
  points_reversed: number;
  offers_issued: number;
  notifications: number;
}

/** Bitmaps to count participants in: every customer with a bit of `mask` set in their bitmap of `year` counts for `group`. */
export interface ParticipantMask {
  group: number;
  year: number;
  mask: string;
}

export interface BehaviorRow {
  id: number;
  name: string;
  goal_groups: StoredGoalGroup[];
}

/**
 * The reads of campaign analytics (contract §19) on the read model the event path writes (migration
 * 1765900000000): the daily counters, distinct participants from the bitmaps, distinct achievers, the goal funnel.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async daily(campaignId: number, from: string, to: string): Promise<DailyRow[]> {
    const rows = await this.db.query<Array<Record<keyof DailyRow, string | number>>>(
      `SELECT (day - DATE '1970-01-01') AS day, behavior_id, sum(events) AS events, sum(participants) AS participants, sum(achievements) AS achievements,
              sum(points_credited) AS points_credited, sum(points_reversed) AS points_reversed, sum(offers_issued) AS offers_issued, sum(notifications) AS notifications
         FROM campaign_daily WHERE campaign_id = $1 AND day BETWEEN $2::date AND $3::date
        GROUP BY day, behavior_id`,
      [campaignId, from, to],
    );
    return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)])) as unknown as DailyRow);
  }

  /** Distinct customers per group: those with any day of the group's masks in their bitmaps. */
  async participants(campaignId: number, masks: ParticipantMask[]): Promise<Map<number, number>> {
    const rows = await this.db.query<Array<{ group: number; customers: string }>>(
      `SELECT q.group, count(DISTINCT p.customer_id) AS customers
         FROM json_to_recordset($2::json) AS q("group" int, year smallint, mask text)
         JOIN campaign_participants p ON p.campaign_id = $1 AND p.year = q.year AND (p.days & q.mask::bit(366)) <> repeat('0', 366)::bit(366)
        GROUP BY q.group`,
      [campaignId, JSON.stringify(masks)],
    );
    return new Map(rows.map((r) => [r.group, Number(r.customers)]));
  }

  /** Distinct customers with an achievement not reversed in the range, by behavior, and over all of them (key 0). */
  async achievers(campaignId: number, from: string, to: string): Promise<Map<number, number>> {
    const rows = await this.db.query<Array<{ behavior_id: number | null; customers: string }>>(
      `SELECT behavior_id, count(DISTINCT customer_id) AS customers FROM campaign_achievers
        WHERE campaign_id = $1 AND day BETWEEN $2::date AND $3::date AND achievements > 0
        GROUP BY ROLLUP (behavior_id)`,
      [campaignId, from, to],
    );
    return new Map(rows.map((r) => [r.behavior_id ?? 0, Number(r.customers)]));
  }

  /** Per goal: the customers with progress on it, and those who completed it. */
  async goals(goalIds: number[]): Promise<Map<number, { started: number; completed: number }>> {
    const rows = await this.db.query<Array<{ goal_id: number; started: string; completed: string }>>(
      `SELECT goal_id, count(*) AS started, count(*) FILTER (WHERE completed) AS completed FROM campaign_goal_customers WHERE goal_id = ANY($1::int[]) GROUP BY goal_id`,
      [goalIds],
    );
    return new Map(rows.map((r) => [r.goal_id, { started: Number(r.started), completed: Number(r.completed) }]));
  }

  /** The campaign's behaviors that are not deleted, in creation order, with their goals. */
  behaviors(campaignId: number): Promise<BehaviorRow[]> {
    return this.db.query(`SELECT id, name, goal_groups FROM behaviors WHERE campaign_id = $1 AND deleted_at IS NULL ORDER BY id`, [campaignId]);
  }
}
