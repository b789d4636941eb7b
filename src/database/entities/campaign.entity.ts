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
}
