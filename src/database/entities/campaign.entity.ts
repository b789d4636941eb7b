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
}
