import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type AuditAction = 'create' | 'update' | 'delete';

/** One configuration change: who (api key), what (object, before, after), when. */
@Entity('audit_log')
export class AuditEntry {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('integer', { name: 'api_key_id', nullable: true })
  apiKeyId: number | null;

  @Column('text')
  action: AuditAction;

  @Column('text', { name: 'object_type' })
  objectType: string;

  @Column('text', { name: 'object_id' })
  objectId: string;

  @Column('jsonb', { nullable: true })
  before: Record<string, unknown> | null;

  @Column('jsonb', { nullable: true })
  after: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
