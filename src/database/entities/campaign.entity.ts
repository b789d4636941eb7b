import { bigintAsNumber } from './column-types.js';
import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Criterion, Status } from '../../engine/index.js';
import { SoftDeletable } from './timestamps.js';

@Entity('campaigns')
export class Campaign extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('text')
  name: string;

  @Column('text')
  permalink: string;

  @Column('text')
  status: Status;

  @Column('timestamptz', { name: 'starts_at' })
  startsAt: Date;

  @Column('timestamptz', { name: 'ends_at' })
  endsAt: Date;

  @Column('integer', { name: 'division_id' })
  divisionId: number;

  @Column('boolean', { name: 'opt_in_required' })
  optInRequired: boolean;

  @Column('integer', { name: 'prerequisite_campaign_ids', array: true })
  prerequisiteCampaignIds: number[];

  @Column('jsonb')
  targeting: Criterion[];

  /** The campaign budget (contract §14): null members are no limit; both null, no budget. */
  @Column('integer', { name: 'budget_max_completions', nullable: true })
  budgetMaxCompletions: number | null;

  @Column('integer', { name: 'budget_max_points', nullable: true })
  budgetMaxPoints: number | null;

  /** What completions have used of the budget since it was set (written by the event path, never by management). */
  @Column({ type: 'integer', name: 'budget_completions', update: false, insert: false })
  budgetCompletions: number;

  @Column({ type: 'bigint', name: 'budget_points', update: false, insert: false, transformer: bigintAsNumber })
  budgetPoints: number;

  /** The experiment's settings (contract §20); null: none. */
  @Column('jsonb', { nullable: true })
  experiment: StoredExperiment | null;

  /** The first assignment (written by the event path, never by management). */
  @Column({ type: 'timestamptz', name: 'experiment_started_at', nullable: true, update: false, insert: false })
  experimentStartedAt: Date | null;

  @Column('timestamptz', { name: 'experiment_ended_at', nullable: true })
  experimentEndedAt: Date | null;

  @Column('text', { name: 'experiment_winner', nullable: true })
  experimentWinner: string | null;
}

/** An experiment's settings as stored, in the API's form. */
export interface StoredExperiment {
  holdout_percent: number;
  variants: Array<{ name: string; weight: number }>;
  metric: { event: string; attribute: string | null };
}
