import { ApiProperty } from '@nestjs/swagger';
import { ApiTimestamp } from '../../../common/validation/schedule.dto.js';

/** What the audit log records changes of (ConfigChangesService.record callers), and customers' erasures (contract §21). */
const OBJECT_TYPES = ['campaign', 'line_item', 'creative_group', 'creative', 'behavior', 'offer', 'tier', 'division', 'webhook', 'settings', 'user'];

const SNAPSHOT = {
  nullable: true,
  type: 'object',
  additionalProperties: true,
} as const;

export class AuditEntryView {
  @ApiProperty({ example: '17', pattern: '^[0-9]+$', description: 'Entry id: a 64-bit integer, sent as a string of digits' }) id: string;
  @ApiProperty({ example: 'update', enum: ['create', 'update', 'delete'], description: 'delete is a soft delete' }) action: string;
  @ApiProperty({ example: 'campaign', enum: OBJECT_TYPES, description: 'The kind of object changed' }) object_type: string;
  @ApiProperty({
    example: '42',
    pattern: '^([0-9]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$',
    description: "The changed object's id, as a string of digits; for a user (an erasure, action delete), the erased customer's user_id alone",
  })
  object_id: string;
  @ApiProperty({
    example: '3f9c2a7e5b1d4c8e9a0b6d2f4e1c7a5b',
    nullable: true,
    type: String,
    description: 'The api key that made the change (deactivated keys included); null if none was recorded',
  })
  api_key: string | null;
  @ApiProperty({
    ...SNAPSHOT,
    example: { id: 42, name: 'Summer explorer', status: 'draft' },
    description: 'The object as the management API answered it before the change (free-form: its shape is the object type\'s view); null for a create',
  })
  before: Record<string, unknown> | null;
  @ApiProperty({
    ...SNAPSHOT,
    example: { id: 42, name: 'Summer explorer', status: 'live' },
    description: 'The object as the management API answered it after the change (free-form, as before); a delete shows it with its deletion marker',
  })
  after: Record<string, unknown> | null;
  @ApiTimestamp() created_at: string;
}

export class AuditLogResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [AuditEntryView], description: 'Newest first' }) audit_log: AuditEntryView[];
  @ApiProperty({ example: 1, type: 'integer' }) page: number;
  @ApiProperty({ example: 10, type: 'integer' }) limit: number;
  @ApiProperty({ example: 1, type: 'integer', description: 'Every entry of the organization, across pages' }) total: number;
}
