import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Criterion, Status } from '../../engine/index.js';
import { SoftDeletable } from './timestamps.js';

@Entity('creative_groups')
export class CreativeGroup extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('integer', { name: 'line_item_id' })
  lineItemId: number;

  @Column('text')
  name: string;

  @Column('text', { name: 'display_name', nullable: true })
  displayName: string | null;

  @Column('text')
  status: Status;

  @Column('timestamptz', { name: 'starts_at' })
  startsAt: Date;

  @Column('timestamptz', { name: 'ends_at' })
  endsAt: Date;

  @Column('jsonb')
  targeting: Criterion[];
}
