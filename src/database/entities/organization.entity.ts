import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintAsNumber } from './column-types.js';
import { Timestamps } from './timestamps.js';

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

  /** Bumped by every configuration change, so every process knows when to recompile the rules. */
  @Column('bigint', { name: 'rules_version', transformer: bigintAsNumber, default: 0 })
  rulesVersion: number;
}
