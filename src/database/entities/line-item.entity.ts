import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Status } from '../../engine/index.js';
import { SoftDeletable } from './timestamps.js';

@Entity('line_items')
export class LineItem extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('integer', { name: 'campaign_id' })
  campaignId: number;

  @Column('text')
  name: string;

  @Column('text', { name: 'display_name', nullable: true })
  displayName: string | null;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text')
  status: Status;

  @Column('timestamptz', { name: 'starts_at' })
  startsAt: Date;

  @Column('timestamptz', { name: 'ends_at' })
  endsAt: Date;
}
