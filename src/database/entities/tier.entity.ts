import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { SoftDeletable } from './timestamps.js';

@Entity('tiers')
export class Tier extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('text')
  name: string;

  @Column('integer', { name: 'min_points' })
  minPoints: number;

  /** Qualifying points that keep the tier at a review (§17); null: `minPoints`. */
  @Column('integer', { name: 'retain_points', nullable: true })
  retainPoints: number | null;
}
