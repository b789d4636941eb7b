import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsString, Length } from 'class-validator';
import { NestedObject, Required } from '../../../common/validation/validators.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../occurrences.js';

export class CreateWebhookInput {
  @ApiProperty({
    example: 'https://example.com/hooks/loyalty',
    description: 'http(s); private, loopback and link-local addresses are refused unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true',
  })
  @Required()
  @IsString()
  @Length(1, 2048)
  url: string;

  @ApiProperty({ example: ['notification.created', 'points.credited'], enum: WEBHOOK_EVENT_TYPES, isArray: true, description: 'At least one, no repeats' })
  @Required()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `each value in event_types must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  event_types: WebhookEventType[];
}

export class CreateWebhookBody {
  @ApiProperty({ type: CreateWebhookInput })
  @Required()
  @NestedObject()
  @Type(() => CreateWebhookInput)
  webhook: CreateWebhookInput;
}

export class WebhookView {
  @ApiProperty({ example: 3 }) id: number;
  @ApiProperty({ example: 'https://example.com/hooks/loyalty' }) url: string;
  @ApiProperty({ example: ['notification.created', 'points.credited'], enum: WEBHOOK_EVENT_TYPES, isArray: true }) event_types: WebhookEventType[];
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiPropertyOptional({ example: '2026-01-05T10:00:00.000Z', description: 'Only on the answer of a delete' }) deleted_at?: string;
}

export class CreatedWebhookView extends WebhookView {
  @ApiProperty({
    example: 'whsec_5f0c...',
    description: 'The signing secret (HMAC-SHA256 key). Shown only in this answer: store it now, it is never answered again.',
  })
  secret: string;
}

export class CreatedWebhookResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: CreatedWebhookView }) webhook: CreatedWebhookView;
}

export class WebhookResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: WebhookView }) webhook: WebhookView;
}

export class WebhookListResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [WebhookView] }) webhooks: WebhookView[];
}

export class DeliveryAttemptView {
  @ApiProperty({ example: 1, description: 'From 1' }) attempt: number;
  @ApiProperty({ example: 'failed', enum: ['succeeded', 'failed'] }) status: 'succeeded' | 'failed';
  @ApiProperty({ example: 500, nullable: true, type: Number, description: 'null when no HTTP answer came (network error, timeout)' })
  response_code: number | null;
  @ApiProperty({ example: 'HTTP 500', nullable: true, type: String }) error: string | null;
  @ApiProperty({ example: 42 }) duration_ms: number;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) started_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:00.042Z' }) finished_at: string;
}

export class DeliveryView {
  @ApiProperty({ example: '17', description: 'The delivery (x-webhook-delivery header)' }) id: string;
  @ApiProperty({ example: '0d3f2c1e-8a5b-4a4e-9f47-6a1c2b3d4e5f', description: 'The payload id (x-webhook-id header), the same on every attempt' })
  event_id: string;
  @ApiProperty({ example: 'points.credited', enum: WEBHOOK_EVENT_TYPES }) type: string;
  @ApiProperty({ example: 'delivered', enum: ['pending', 'retrying', 'delivered', 'failed', 'cancelled'] }) status: string;
  @ApiProperty({ example: 2 }) attempt_count: number;
  @ApiProperty({ example: '2026-01-05T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-01-05T10:00:01.100Z', nullable: true, type: String }) delivered_at: string | null;
  @ApiProperty({ type: [DeliveryAttemptView], description: 'Every attempt, first first' }) attempts: DeliveryAttemptView[];
}

export class DeliveryListResponse {
  @ApiProperty({ example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [DeliveryView], description: 'Newest first' }) deliveries: DeliveryView[];
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 10 }) limit: number;
  @ApiProperty({ example: 1 }) total: number;
}
