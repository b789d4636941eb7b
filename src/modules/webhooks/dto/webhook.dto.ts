import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsString, Length } from 'class-validator';
import { ApiDeletedAt, ApiTimestamp } from '../../../common/validation/schedule.dto.js';
import { Required } from '../../../common/validation/validators.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../occurrences.js';
import { RequiredObject } from '../../../common/validation/wrappers.js';

export class CreateWebhookInput {
  @ApiProperty({
    example: 'https://example.com/hooks/loyalty',
    minLength: 1,
    maxLength: 2048,
    description:
      'An absolute http(s) URL. Unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, localhost and private, loopback, link-local and other ' +
      'non-public addresses are refused (400 validation); host names are resolved, and checked again, at every delivery attempt',
  })
  @Required()
  @IsString()
  @Length(1, 2048)
  url: string;

  @ApiProperty({
    example: ['notification.created', 'points.credited'],
    enum: WEBHOOK_EVENT_TYPES,
    isArray: true,
    minItems: 1,
    uniqueItems: true,
    description: 'The event types to receive: at least one, no repeats',
  })
  @Required()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `each value in event_types must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  event_types: WebhookEventType[];
}

export class CreateWebhookBody {
  @RequiredObject(CreateWebhookInput)
  webhook: CreateWebhookInput;
}

export class WebhookView {
  @ApiProperty({ example: 3, type: 'integer', description: 'Webhook id' }) id: number;
  @ApiProperty({ example: 'https://example.com/hooks/loyalty', description: 'Where deliveries are POSTed' }) url: string;
  @ApiProperty({
    example: ['notification.created', 'points.credited'],
    enum: WEBHOOK_EVENT_TYPES,
    isArray: true,
    description: 'The event types it receives',
  })
  event_types: WebhookEventType[];
  @ApiTimestamp() created_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class CreatedWebhookView extends WebhookView {
  @ApiProperty({
    example: 'whsec_5f0c1d2e3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3',
    pattern: '^whsec_[0-9a-f]{64}$',
    description:
      'The signing secret: the HMAC-SHA256 key of the x-webhook-signature header. Shown only in this answer: store it now, it is never answered again.',
  })
  secret: string;
}

export class CreatedWebhookResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: CreatedWebhookView }) webhook: CreatedWebhookView;
}

export class WebhookResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: WebhookView }) webhook: WebhookView;
}

export class WebhookListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [WebhookView], description: 'The live webhooks, oldest first' }) webhooks: WebhookView[];
}

export class DeliveryAttemptView {
  @ApiProperty({ example: 1, type: 'integer', minimum: 1, description: 'From 1' }) attempt: number;
  @ApiProperty({
    example: 'failed',
    enum: ['succeeded', 'failed'],
    description: 'succeeded: a 2xx answer within 10 seconds',
  })
  status: 'succeeded' | 'failed';
  @ApiProperty({
    example: 500,
    nullable: true,
    type: 'integer',
    description: 'The HTTP status answered; null when no HTTP answer came (network error, timeout)',
  })
  response_code: number | null;
  @ApiProperty({
    example: 'HTTP 500',
    nullable: true,
    type: String,
    description: 'Why it failed (HTTP 500, ECONNREFUSED, timed out after 10000 ms, ...); null on success',
  })
  error: string | null;
  @ApiProperty({ example: 42, type: 'integer', description: 'How long the attempt took, in milliseconds' }) duration_ms: number;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-05T10:00:00.000Z' }) started_at: string;
  @ApiProperty({ type: String, format: 'date-time', example: '2026-01-05T10:00:00.042Z' }) finished_at: string;
}

export class DeliveryView {
  @ApiProperty({
    example: '17',
    pattern: '^[0-9]+$',
    description: 'The delivery id (x-webhook-delivery header): a 64-bit integer, sent as a string of digits',
  })
  id: string;
  @ApiProperty({
    example: '0d3f2c1e-8a5b-4a4e-9f47-6a1c2b3d4e5f',
    format: 'uuid',
    description: 'The payload id (x-webhook-id header), the same on every attempt and for every webhook that gets this event',
  })
  event_id: string;
  @ApiProperty({ example: 'points.credited', enum: WEBHOOK_EVENT_TYPES }) type: string;
  @ApiProperty({
    example: 'delivered',
    enum: ['pending', 'retrying', 'delivered', 'failed', 'cancelled'],
    description:
      'pending: not tried yet; retrying: failed, another attempt is scheduled; delivered; failed: out of attempts; cancelled: the webhook was deleted',
  })
  status: string;
  @ApiProperty({ example: 2, type: 'integer', description: 'Attempts made so far' }) attempt_count: number;
  @ApiTimestamp() created_at: string;
  @ApiProperty({
    example: '2026-01-05T10:00:01.100Z',
    nullable: true,
    type: String,
    format: 'date-time',
    description: 'null until delivered',
  })
  delivered_at: string | null;
  @ApiProperty({ type: [DeliveryAttemptView], description: 'Every attempt, first first' }) attempts: DeliveryAttemptView[];
}

export class DeliveryListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [DeliveryView], description: 'Newest first' }) deliveries: DeliveryView[];
  @ApiProperty({ example: 1, type: 'integer' }) page: number;
  @ApiProperty({ example: 10, type: 'integer' }) limit: number;
  @ApiProperty({ example: 1, type: 'integer', description: 'Every delivery of the webhook, across pages' }) total: number;
}
