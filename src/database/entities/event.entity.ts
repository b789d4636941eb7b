import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import { bigintAsNumber, type FlatObject } from './column-types.js';

export type EventSource = 'v1' | 'v1_async' | 'v2' | 'perform';
export type EventStatus = 'pending' | 'processed' | 'rejected' | 'failed' | 'stored';

/**
 * The reason of events whose job ran out of attempts (the error is in the worker's log, under the job's id). Every
 * failed event answers it, also one stored before the reason became a code (it kept the error's text then).
 */
export const EVALUATION_FAILED = 'evaluation_failed';

/** One event instance as received, with what processing made of it. */
@Entity('events')
export class EventRecord {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('integer', { name: 'api_key_id' })
  apiKeyId: number;

  @Column('uuid', { name: 'customer_id', nullable: true })
  customerId: string | null;

  @Column('text', { name: 'user_ref', nullable: true })
  userRef: string | null;

  @Column('text')
  source: EventSource;

  @Column('text', { name: 'transaction_id', nullable: true })
  transactionId: string | null;

  @Column('text')
  name: string;

  @Column('numeric', { transformer: { to: (v: number) => v, from: (v: string) => Number(v) } })
  count: number;

  @Column('jsonb')
  attributes: Record<string, unknown>;

  @Column('jsonb')
  context: FlatObject;

  @Column('integer', { name: 'division_id', nullable: true })
  divisionId: number | null;

  @Column('integer', { name: 'campaign_id', nullable: true })
  campaignId: number | null;

  @Column('timestamptz', { name: 'occurred_at' })
  occurredAt: Date;

  @Column('text')
  status: EventStatus;

  @Column('text', { nullable: true })
  reason: string | null;

  @Column('jsonb', { nullable: true })
  result: Record<string, unknown> | null;

  @Column('bigint', { name: 'points_earned', transformer: bigintAsNumber })
  pointsEarned: number;

  @Column('boolean')
  qualify: boolean;

  @Column('integer')
  attempts: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { name: 'processed_at', nullable: true })
  processedAt: Date | null;
}
