import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintAsNumber, type FlatObject } from './column-types.js';
import { Timestamps } from './timestamps.js';

@Entity('customers')
export class Customer extends Timestamps {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('text', { name: 'external_id' })
  externalId: string;

  @Column('text', { name: 'time_zone' })
  timeZone: string;

  @Column('integer', { name: 'division_id' })
  divisionId: number;

  @Column('text', { array: true })
  tags: string[];

  @Column('jsonb')
  attributes: FlatObject;

  @Column('bigint', { name: 'available_points', transformer: bigintAsNumber })
  availablePoints: number;

  @Column('bigint', { name: 'lifetime_points', transformer: bigintAsNumber })
  lifetimePoints: number;

  @Column('integer', { name: 'tier_id', nullable: true })
  tierId: number | null;

  /** The tier the customer had at the last tier policy change (kept until the first review after it). */
  @Column('integer', { name: 'tier_floor_id', nullable: true })
  tierFloorId: number | null;

  /** When the customer's next tier review takes effect (null: none to apply). */
  @Column('timestamptz', { name: 'tier_review_at', nullable: true })
  tierReviewAt: Date | null;

  @Column('integer', { name: 'qualified_campaign_ids', array: true })
  qualifiedCampaignIds: number[];

  @Column('integer', { name: 'completed_campaign_ids', array: true })
  completedCampaignIds: number[];

  /** Set by the customer's erasure (contract §21): the row is a tombstone no lookup finds, until the erasure worker deletes it. */
  @Column('timestamptz', { name: 'erased_at', nullable: true })
  erasedAt: Date | null;
}
