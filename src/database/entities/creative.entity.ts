import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Status } from '../../engine/index.js';
import { SoftDeletable } from './timestamps.js';

/** `issue_audience_csv` as stored: the request members plus the response-only members of the seed. */
export interface IssueAudienceCsv {
  delivery_method: 'triggered' | 'scheduled';
  scheduled_delivery_date?: string | null;
  template_id?: string | null;
  behavior_id?: number | null;
  [member: string]: unknown;
}

@Entity('creatives')
export class Creative extends SoftDeletable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column('integer', { name: 'organization_id' })
  organizationId: number;

  @Column('integer', { name: 'creative_group_id' })
  creativeGroupId: number;

  @Column('integer', { name: 'application_id' })
  applicationId: number;

  @Column('text')
  name: string;

  @Column('text')
  status: Status;

  @Column('text', { name: 'ad_type' })
  adType: string;

  @Column('text', { name: 'creative_type' })
  creativeType: string;

  @Column('text', { nullable: true })
  message: string | null;

  @Column('text', { nullable: true })
  url: string | null;

  @Column('jsonb', { nullable: true })
  payload: Record<string, unknown> | null;

  @Column('jsonb', { name: 'issue_audience_csv' })
  issueAudienceCsv: IssueAudienceCsv;

  @Column('integer', { name: 'behavior_id', nullable: true })
  behaviorId: number | null;
}
