import { Column, CreateDateColumn, DeleteDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Criterion, Status } from '../../engine/index.js';

@Entity('campaigns')
export class Campaign {
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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz' })
  deletedAt: Date | null;
}
