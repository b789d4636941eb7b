import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Criterion } from '../../engine/index.js';
import { SoftDeletable } from './timestamps.js';

/** A goal as stored inside its behavior's `goal_groups` (contract §6 achievement, with its id). */
export interface StoredGoal {
  id: number;
  name: string;
  internal_event_name: string | null;
  event_count: number;
  type: 'count' | 'unique';
  unique_attribute: string | null;
  points: number;
  required: boolean;
  criteria: Criterion[];
  tags: string | null;
  data: Record<string, unknown>;
}

export interface StoredGoalGroup {
  goal_count: number | null;
  goals: StoredGoal[];
}

/** An outcome as stored: the request's form (deal, ad_unit, points, event, tier) with its id. */
/** The members every stored outcome has besides the one naming its reward kind. */
export const OUTCOME_BOOKKEEPING: readonly string[] = ['id', 'created_at', 'updated_at'];

/** One outcome as stored: its reward kind's member (a built-in's below, or an extension's) and the bookkeeping. */
export interface StoredOutcome {
  [kind: string]: unknown;
  id: number;
  deal?: { id: number };
  ad_unit?: { id: number };
  points?: number;
  event?: { name: string; by: number };
  tier?: { name: string };
  created_at: string;
  updated_at: string;
}

@Entity('behaviors')
export class Behavior extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('integer', { name: 'campaign_id' })
  campaignId: number;

  @Column('text')
  name: string;

  @Column('text', { nullable: true })
  tags: string | null;

  @Column('integer')
  points: number;

  @Column('jsonb')
  data: Record<string, unknown>;

  @Column('jsonb', { name: 'goal_groups' })
  goalGroups: StoredGoalGroup[];

  @Column('jsonb', { name: 'outcome_config' })
  outcomeConfig: StoredOutcome[];

  /** The experiment variant whose customers alone it evaluates (contract §20); null: every customer. */
  @Column('text', { nullable: true })
  variant: string | null;
}
