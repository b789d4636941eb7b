import { ApiProperty } from '@nestjs/swagger';

export class AuditEntryView {
  @ApiProperty({ example: '17' }) id: string;
  @ApiProperty({ example: 'update', enum: ['create', 'update', 'delete'] }) action: string;
  @ApiProperty({ example: 'campaign' }) object_type: string;
  @ApiProperty({ example: '42' }) object_id: string;
  @ApiProperty({ example: '3f9c2a7e5b1d4c8e9a0b6d2f4e1c7a5b', nullable: true, type: String, description: 'The api key that made the change' })
  api_key: string | null;
  @ApiProperty({ example: { status: 'draft' }, nullable: true, type: Object }) before: Record<string, unknown> | null;
  @ApiProperty({ example: { status: 'live' }, nullable: true, type: Object }) after: Record<string, unknown> | null;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
}

export class AuditLogResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [AuditEntryView] }) audit_log: AuditEntryView[];
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 10 }) limit: number;
  @ApiProperty({ example: 1 }) total: number;
}
