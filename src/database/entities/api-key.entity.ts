import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An application's credential. Only a scrypt hash of the secret is kept. */
@Entity('api_keys')
export class ApiKey {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('integer', { name: 'application_id' })
  applicationId: number;

  @Column('text')
  key: string;

  @Column('text', { name: 'secret_hash' })
  secretHash: string;

  @Column('boolean')
  active: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column('timestamptz', { name: 'deactivated_at', nullable: true })
  deactivatedAt: Date | null;
}
