import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { SoftDeletable } from './timestamps.js';

@Entity('offers')
export class Offer extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('text')
  name: string;

  @Column('integer')
  points: number;

  @Column('text', { nullable: true })
  description: string | null;
}
