import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { SoftDeletable } from './timestamps.js';

/** A node of an organization's division tree. `ancestorIds` holds the path from the root down to this node. */
@Entity('divisions')
export class Division extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('integer', { name: 'parent_id', nullable: true })
  parentId: number | null;

  @Column('text')
  name: string;

  @Column('integer', { name: 'ancestor_ids', array: true })
  ancestorIds: number[];
}
