import { ApiProperty } from '@nestjs/swagger';
import { AD_TYPES } from '../../creatives/index.js';

export class NotificationData {
  @ApiProperty({ enum: ['message', 'open_ad'], example: 'message', description: 'message for email, push and messaging creatives; open_ad for the others' })
  action_type: string;
  @ApiProperty({ example: 'https://example.com/reward', nullable: true, type: String, description: "The creative's url" }) url: string | null;
  @ApiProperty({ example: 'You earned a coffee!', nullable: true, type: String, description: "The creative's message" }) message: string | null;
  @ApiProperty({
    example: { coupon: 'COFFEE' },
    nullable: true,
    type: 'object',
    additionalProperties: true,
    description: "The creative's payload: free-form JSON of the campaign manager's choosing",
  })
  payload: Record<string, unknown> | null;
}

/** The members every notification has, whether stored or previewed. */
abstract class NotificationFields {
  @ApiProperty({ enum: AD_TYPES, example: 'push_message', description: "The creative's ad_type" }) type: string;
  @ApiProperty({ type: 'integer', example: 42 }) campaign_id: number;
  @ApiProperty({ example: 'Visit three stores', description: 'The behavior whose completion triggered the creative' }) behavior_name: string;
  @ApiProperty({ type: NotificationData }) data: NotificationData;
}

/** A stored notification: a triggered creative's message for one completion (contract §11). */
export class NotificationView extends NotificationFields {
  @ApiProperty({ type: 'integer', example: 17, description: 'Notification id' }) id: number;
}

/** A notification of a synchronous V1 answer: stored, or only previewed with read_only. */
export class V1NotificationView extends NotificationFields {
  @ApiProperty({ type: 'integer', nullable: true, example: 17, description: 'Notification id; null with read_only: true, where nothing is stored' })
  id: number | null;
}
