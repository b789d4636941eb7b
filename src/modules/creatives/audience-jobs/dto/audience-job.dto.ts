import { ApiProperty } from '@nestjs/swagger';

export const AUDIENCE_JOB_STATUSES = ['scheduled', 'running', 'completed', 'failed', 'cancelled'] as const;
export type AudienceJobStatus = (typeof AUDIENCE_JOB_STATUSES)[number];

export class AudienceJobView {
  @ApiProperty({ type: 'integer', example: 12 }) id: number;
  @ApiProperty({ enum: AUDIENCE_JOB_STATUSES, example: 'completed' }) status: AudienceJobStatus;
  @ApiProperty({ example: 1530, type: 'integer', nullable: true, description: 'Customers in the audience; null until the job completes' })
  customer_count: number | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    example: '2026-01-05T10:00:00.000Z',
    description: "The creative's scheduled_delivery_date this run was for",
  })
  scheduled_at: string;
  @ApiProperty({
    example: '2026-01-05T10:00:02.125Z',
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'When it completed (or failed); null before',
  })
  completed_at: string | null;
}

export class AudienceJobListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [AudienceJobView], description: 'Newest first' }) audience_jobs: AudienceJobView[];
}
