import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { bigintAsNumber } from './column-types.js';

@Entity('organizations')
export class Organization {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('text')
  name: string;

  @Column('boolean', { name: 'multi_org_enabled' })
  multiOrgEnabled: boolean;

  @Column('text', { name: 'time_zone' })
  timeZone: string;

  /** Bumped by every configuration change, so every process knows when to recompile the rules. */
  @Column('bigint', { name: 'rules_version', transformer: bigintAsNumber, default: 0 })
  rulesVersion: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
