import { Column, CreateDateColumn, DeleteDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A node of an organization's division tree. `ancestorIds` holds the path from the root down to this node. */
@Entity('divisions')
export class Division {
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

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz' })
  deletedAt: Date | null;
}
