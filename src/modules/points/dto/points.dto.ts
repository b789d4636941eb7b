import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Length, Max, Min } from 'class-validator';
import { ApiTimestamp } from '../../../common/validation/schedule.dto.js';
import { Optional, Required } from '../../../common/validation/validators.js';
import { RequiredObject } from '../../../common/validation/wrappers.js';

const TIME = { type: String, format: 'date-time', example: '2027-01-05T10:00:00.000Z' };
const REASONS = ['behavior', 'goal', 'offer', 'debit', 'expired', 'reversal'];

export class LedgerEntryView {
  @ApiProperty({ example: '42', description: 'Entry id (a string: ids grow past 2^53)' }) id: string;
  @ApiProperty({ example: 50, type: 'integer', description: 'Points: positive for a credit, negative for a debit, an expiry or a reversal' }) amount: number;
  @ApiProperty({ example: 'behavior', description: `Why: ${REASONS.join(', ')}` }) reason: string;
  @ApiProperty({ example: '1001', type: 'string', nullable: true, description: 'The event that earned a credit (null for the other entries)' }) event_id: string | null;
  @ApiProperty({ example: 7, type: 'integer', nullable: true, description: 'The campaign of a credit' }) campaign_id: number | null;
  @ApiProperty({ example: 'Buy a coffee', type: 'string', nullable: true, description: 'The behavior of a credit' }) behavior_name: string | null;
  @ApiProperty({ ...TIME, nullable: true, description: 'When a credit expires (null: never, or not a credit)' }) expires_at: string | null;
  @ApiTimestamp() created_at: string;
}

export class ExpiringPointsView {
  @ApiProperty({ example: 30, type: 'integer', description: 'Points of one credit still to expire' }) points: number;
  @ApiTimestamp() expires_at: string;
}

export class PointsLedgerResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ example: 120, type: 'integer' }) available_points: number;
  @ApiProperty({ example: 200, type: 'integer' }) lifetime_points: number;
  @ApiProperty({ type: [ExpiringPointsView], description: 'Credits with points left that expire, soonest first, at most 10' }) expiring: ExpiringPointsView[];
  @ApiProperty({ type: [LedgerEntryView], description: 'Newest first (by created_at, then id)' }) entries: LedgerEntryView[];
  @ApiProperty({ example: 1, type: 'integer' }) page: number;
  @ApiProperty({ example: 10, type: 'integer' }) limit: number;
  @ApiProperty({ example: 3, type: 'integer', description: "Every entry of the customer's ledger, across pages" }) total: number;
}

export class DebitInput {
  @ApiProperty({ example: 50, type: 'integer', minimum: 1, maximum: 2_147_483_647, description: 'Points to spend' })
  @Required()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  points: number;

  @ApiPropertyOptional({ example: 'Free coffee', maxLength: 500, description: 'What the points were spent on, echoed back and sent in the webhook' })
  @Optional()
  @IsString()
  @Length(1, 500)
  reason?: string;

  @ApiPropertyOptional({ example: 'redeem-7f3a', maxLength: 255, description: 'Idempotency key, unique per api key among debits' })
  @Optional()
  @IsString()
  @Length(1, 255)
  transaction_id?: string;
}

export class DebitBody {
  @RequiredObject(DebitInput)
  debit: DebitInput;
}

export class DebitView {
  @ApiProperty({ example: '43', description: 'The ledger entry of the debit' }) id: string;
  @ApiProperty({ example: 50, type: 'integer' }) points: number;
  @ApiProperty({ example: 'Free coffee', type: 'string', nullable: true }) reason: string | null;
  @ApiTimestamp() created_at: string;
}

export class BalanceView {
  @ApiProperty({ example: 70, type: 'integer' }) available_points: number;
  @ApiProperty({ example: 200, type: 'integer' }) lifetime_points: number;
  @ApiProperty({ example: 'Silver', type: 'string', nullable: true, description: "The customer's tier's name (null: none)" }) tier: string | null;
}

export class DebitResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: DebitView }) debit: DebitView;
  @ApiProperty({ type: BalanceView, description: 'The customer after the debit' }) user: BalanceView;
}

export class ReversalInput {
  @ApiProperty({ example: 'ord_1001', maxLength: 255, description: 'The transaction_id of an earlier V1 or V2 submission of this customer under this api key' })
  @Required()
  @IsString()
  @Length(1, 255)
  transaction_id: string;

  @ApiPropertyOptional({ example: 'Refund', maxLength: 500, description: 'Why (a refund, fraud): kept with the reversal and sent in the webhook' })
  @Optional()
  @IsString()
  @Length(1, 500)
  reason?: string;
}

export class ReversalBody {
  @RequiredObject(ReversalInput)
  reversal: ReversalInput;
}

export class ReversalView {
  @ApiProperty({ example: '5', description: 'Reversal id' }) id: string;
  @ApiProperty({ example: 'ord_1001' }) transaction_id: string;
  @ApiProperty({ example: 1, type: 'integer', description: 'Event instances of the submission' }) events: number;
  @ApiProperty({ example: 50, type: 'integer', description: 'Points taken back from available_points (at most what was available)' }) points: number;
  @ApiProperty({ example: 1, type: 'integer', description: 'Behavior completions undone' }) achievements: number;
}

export class ReversalResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: ReversalView }) reversal: ReversalView;
  @ApiProperty({ type: BalanceView, description: 'The customer after the reversal' }) user: BalanceView;
}
