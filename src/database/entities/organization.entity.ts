import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintAsNumber } from './column-types.js';
import { Timestamps } from './timestamps.js';
import type { StoredTierPolicy } from './tier-policy.js';

@Entity('organizations')
export class Organization extends Timestamps {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('text')
  name: string;

  @Column('boolean', { name: 'multi_org_enabled' })
  multiOrgEnabled: boolean;

  @Column('text', { name: 'time_zone' })
  timeZone: string;

  /** Days after its event that a credit expires (null: never). */
  @Column('integer', { name: 'points_expire_after_days', nullable: true })
  pointsExpireAfterDays: number | null;

  /** How tiers qualify (contract §17), as the API takes it. */
  @Column('jsonb', { name: 'tier_policy', default: () => `'{"basis":"lifetime"}'` })
  tierPolicy: StoredTierPolicy;

  /** When the tier policy last changed (null: never): customers keep their tier until the first review after it. */
  @Column('timestamptz', { name: 'tier_policy_changed_at', nullable: true })
  tierPolicyChangedAt: Date | null;

  /** Bumped by every configuration change, so every process knows when to recompile the rules. */
  @Column('bigint', { name: 'rules_version', transformer: bigintAsNumber, default: 0 })
  rulesVersion: number;
}
