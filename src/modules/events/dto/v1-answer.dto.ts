import { ApiProperty } from '@nestjs/swagger';
import { ApiSchemaOf } from '../../../common/http/api-schema.js';
import type { CampaignState, ExtensionKind } from '../../../engine/index.js';
import { BehaviorChange, mapOf, V1BehaviorView } from './behavior-progress.dto.js';
import { CAMPAIGN_STATES, FAILURE_STATES } from './engine-values.js';
import { EventExplanationView } from './explanation.dto.js';
import { V1NotificationView } from '../../customers-state/index.js';

// The three answers of a V1 POST .../events route (contract §8): the evaluation (default), {"status":"ok"} with
// async=true, and the eligibility check with qualify=true.

/**
 * The two short answers are closed to other members (additionalProperties: false), so that the oneOf of the three
 * answers is exclusive in the served document too: without it the full answer would also match the short ones, as
 * it has all their members.
 */
const Closed = (description: string) => ApiSchemaOf(description, false);

const STATE_DESCRIPTION =
  'qualified if any campaign qualified, else the first failure met among the campaigns listening to the events, else events_not_qualified';

export class UserSummary {
  @ApiProperty({ type: 'integer', example: 55 }) available_points: number;
  @ApiProperty({ example: 'Gold', nullable: true, type: String, description: "The customer's tier name; null when none" }) tier: string | null;
}

/** An extension that threw while a campaign was evaluated: the campaign was skipped for the request (decision 0025). */
export class ExtensionFailureView {
  @ApiProperty({ type: 'integer', example: 42, description: 'The campaign skipped' }) campaign_id: number;
  @ApiProperty({ type: 'integer', example: 0, description: 'The submitted instance whose evaluation met the failure' }) event_index: number;
  @ApiProperty({ enum: ['criteria_operator', 'reward_kind'], example: 'criteria_operator' }) kind: ExtensionKind;
  @ApiProperty({ example: 'within_km', description: "The operator's or reward kind's name" }) extension: string;
  @ApiProperty({ example: 'StoreRadiusModule', description: 'The extension (module) that defined it' }) source: string;
}

/** The answer of a synchronous V1 submission (also with read_only: true): the evaluation. */
export class V1EventResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: 'integer', example: 55, deprecated: true, description: 'Deprecated: use user.available_points' }) available_points: number;
  @ApiProperty({
    type: [V1NotificationView],
    description: "The notifications this request produced (triggered creatives of the behaviors it completed); empty when none",
  })
  notifications: V1NotificationView[];
  @ApiProperty({ type: UserSummary, description: 'The customer after the request' }) user: UserSummary;
  @ApiProperty(
    mapOf(
      V1BehaviorView,
      'Behavior name → the behavior with its progress and the deltas of this request, for the campaigns the request evaluated (only ' +
        'the scoped one when the path names a campaign); empty when no campaign listens. After a completion its goals show the next ' +
        'cycle (completed false, current_count 0) and its deltas achieved 1 and reset true.',
    ),
  )
  behaviors: Record<string, V1BehaviorView>;
  @ApiProperty(
    mapOf(
      BehaviorChange,
      'Behavior name → what this request changed, only for the behaviors of campaigns that qualified: current_count (change of the ' +
        'goals completed in the cycle, negative when a completion reset them), achieved (completions in this request) and reset: true ' +
        'when the goal progress started again from 0 in this request (after a completion the next cycle begins; or with ' +
        'use_same_period, progress of an earlier period dropped). So after a completion the goals answer completed false and ' +
        'current_count 0 with achieved 1 and reset true here: that is the next cycle, not lost progress.',
    ),
  )
  deltas: Record<string, BehaviorChange>;
  @ApiProperty({ example: true, description: 'state is qualified' }) qualified: boolean;
  @ApiProperty({ enum: CAMPAIGN_STATES, example: 'qualified', description: STATE_DESCRIPTION }) state: CampaignState;
  @ApiProperty({
    type: [EventExplanationView],
    required: false,
    description: 'Only with explain=true: for each event instance (and each event raised by an outcome), why each campaign, behavior and goal did or did not progress',
  })
  explanation?: EventExplanationView[];
  @ApiProperty({
    type: [ExtensionFailureView],
    required: false,
    description:
      'Only when an extension threw: each campaign the request skipped for it, with the extension. The other campaigns were ' +
      'evaluated and their changes stored; the skipped ones changed nothing (state extension_failed when nothing qualified)',
  })
  extension_failures?: ExtensionFailureView[];
}

/** The answer with async=true: the events are stored and queued, nothing is evaluated yet. */
@Closed('The answer with async=true: the events are stored and queued for a worker; nothing is evaluated in the request')
export class V1AsyncResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
}

export class QualificationData {
  @ApiProperty({ enum: FAILURE_STATES, example: 'events_not_qualified', description: 'The state the events would meet in this campaign' }) state: CampaignState;
  @ApiProperty({ example: 'campaign requires opt-in and the customer has not qualified (send "qualify": true)', description: 'Why, in words' }) message: string;
}

/** One campaign the qualify=true check found the events would not qualify for. */
export class QualificationNotification {
  @ApiProperty({ enum: ['qualification'], example: 'qualification' }) type: 'qualification';
  @ApiProperty({ type: 'integer', example: 42 }) campaign_id: number;
  @ApiProperty({ type: QualificationData }) data: QualificationData;
}

/** The answer with qualify=true: a dry eligibility check. */
@Closed('The answer with qualify=true: a dry eligibility check of the campaign states; nothing is stored, processed or opted in')
export class V1QualificationResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ example: false, description: 'Some campaign listening to the events would qualify them' }) qualified: boolean;
  @ApiProperty({ enum: CAMPAIGN_STATES, example: 'events_not_qualified', description: STATE_DESCRIPTION }) state: CampaignState;
  @ApiProperty({
    type: [QualificationNotification],
    description: 'Empty when qualified; otherwise one entry per live campaign checked (those listening to the events, or the scoped one)',
  })
  notifications: QualificationNotification[];
}
