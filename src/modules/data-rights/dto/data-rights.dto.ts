import { ApiProperty } from '@nestjs/swagger';
import { ExperimentAssignmentView, NotificationView, TierHistoryEntry, UserView } from '../../customers-state/index.js';
import { mapOf, RetrievalBehaviorView } from '../../events/index.js';
import { LedgerEntryView } from '../../points/index.js';

const TIME = { type: String, format: 'date-time', example: '2026-01-05T10:00:00.000Z' } as const;
const FREE_OBJECT = { type: 'object', additionalProperties: true, nullable: true } as const;

export class ErasureView {
  @ApiProperty({ format: 'uuid', example: '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a', description: 'The erased customer\'s user_id (it names no one any more)' })
  user_id: string;
  @ApiProperty({ ...TIME, description: 'When the erasure was answered: from then on nothing of the customer is answered' }) erased_at: string;
}

export class ErasureResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: ErasureView }) erasure: ErasureView;
}

export class ExportedEvent {
  @ApiProperty({ example: '42', pattern: '^[0-9]+$', description: 'Event id: a 64-bit integer, sent as a string of digits' }) id: string;
  @ApiProperty({ example: 'store_visit' }) name: string;
  @ApiProperty({ ...TIME, description: 'When the event happened' }) occurred_at: string;
  @ApiProperty({ type: 'integer', example: 1 }) count: number;
  @ApiProperty({ ...FREE_OBJECT, example: { store_id: 's-12' }, description: 'The attributes the event was sent with (V1)' }) attributes: Record<string, unknown> | null;
  @ApiProperty({ ...FREE_OBJECT, example: { app_name: 'mobile' }, description: 'The context the event was sent with' }) context: Record<string, unknown> | null;
  @ApiProperty({ enum: ['pending', 'processed', 'rejected', 'failed', 'stored'], example: 'processed' }) status: string;
}

export class ExportedOffer {
  @ApiProperty({ example: '7', pattern: '^[0-9]+$', description: 'The issue\'s id' }) id: string;
  @ApiProperty({ type: 'integer', example: 3 }) offer_id: number;
  @ApiProperty({ example: 'Free coffee' }) name: string;
  @ApiProperty({ type: 'integer', example: 42 }) campaign_id: number;
  @ApiProperty({ example: '42', type: 'string', nullable: true, description: 'The event that earned it' }) event_id: string | null;
  @ApiProperty({ ...TIME, description: 'When it was issued' }) issued_at: string;
}

export class ExportedDelivery {
  @ApiProperty({ example: '12', pattern: '^[0-9]+$' }) id: string;
  @ApiProperty({ example: 'points.credited', description: 'The webhook event type' }) event_type: string;
  @ApiProperty(TIME) created_at: string;
  @ApiProperty({ enum: ['pending', 'retrying', 'delivered', 'failed', 'cancelled'], example: 'delivered' }) status: string;
}

export class CustomerExport {
  @ApiProperty({ type: UserView, description: 'The customer, as GET .../users/{user_id} answers it' }) user: UserView;
  @ApiProperty({ type: [ExportedEvent], description: 'Every event the log holds of the customer, every month, newest first' }) events: ExportedEvent[];
  @ApiProperty({ type: [LedgerEntryView], description: 'The points ledger, newest first' }) points: LedgerEntryView[];
  @ApiProperty(mapOf(RetrievalBehaviorView, 'Progress in every behavior of every live campaign, as retrieval answers it')) behaviors: Record<string, RetrievalBehaviorView>;
  @ApiProperty({ type: [NotificationView], description: 'Stored notifications, newest first' }) notifications: NotificationView[];
  @ApiProperty({ type: [ExportedOffer], description: 'Offers issued to the customer, newest first' }) offers: ExportedOffer[];
  @ApiProperty({ type: [TierHistoryEntry], description: 'Every move of the tier, newest first' }) tier_history: TierHistoryEntry[];
  @ApiProperty({ type: [ExperimentAssignmentView], description: 'Experiment groups the customer is assigned to' }) experiments: ExperimentAssignmentView[];
  @ApiProperty({ type: [ExportedDelivery], description: 'Webhook deliveries about the customer, newest first' }) webhook_deliveries: ExportedDelivery[];
}

export class CustomerExportResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: CustomerExport }) export: CustomerExport;
}
