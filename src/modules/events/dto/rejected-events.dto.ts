import { ApiProperty } from '@nestjs/swagger';

/** One V2 (or V1 async) event the workers rejected, as listed by GET .../events/rejected and `events:rejected`. */
export class RejectedEventView {
  @ApiProperty({ pattern: '^[0-9]+$', example: '1042', description: 'The stored event id (a 64-bit integer, as a string)' }) id: string;
  @ApiProperty({ example: 'app_download' }) name: string;
  @ApiProperty({ example: 'c-404', nullable: true, type: String, description: 'The customer as the event named it: its external_id, else its user_id' })
  user_ref: string | null;
  @ApiProperty({
    enum: ['customer_not_found'],
    example: 'customer_not_found',
    description: 'Why it was rejected; customer_not_found: no customer of the organization has that user_id or external_id',
  })
  reason: string;
  @ApiProperty({ enum: ['v1_async', 'v2'], example: 'v2', description: 'v2: POST /priv/v2/apps/{api_key}/events; v1_async: a V1 route with async=true' })
  source: string;
  @ApiProperty({ example: 'b7f1c2d4-0e9a-4c1b-8f3e-2a6d5c4b3a21', nullable: true, type: String }) transaction_id: string | null;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-05T10:00:00.000Z', description: 'When the event happened (as sent, else when it was received)' })
  occurred_at: string;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-05T10:00:01.000Z', description: 'When the service stored it' }) created_at: string;
}

export class RejectedEventsResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [RejectedEventView], description: 'Newest first' }) events: RejectedEventView[];
  @ApiProperty({ type: 'integer', example: 1, description: 'The page answered' }) page: number;
  @ApiProperty({ type: 'integer', example: 10, description: 'Items per page' }) limit: number;
  @ApiProperty({ type: 'integer', example: 1, description: 'Rejected events of the organization in all' }) total: number;
}
