import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { ApiSchemaOf } from '../../../common/http/api-schema.js';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsString, IsUrl, Length, Max, Min } from 'class-validator';
import type { Status } from '../../../engine/index.js';
import {
  ApiDeletedAt,
  ApiStatus,
  ApiTimestamp,
  OptionalName,
  OptionalStatus,
  RequiredName,
  RequiredStatus,
} from '../../../common/validation/schedule.dto.js';
import { IsDatetime, NestedObject, Optional, Required } from '../../../common/validation/validators.js';
import { DATETIME_FORMS } from '../../campaigns/index.js';
import { AD_TYPES, CREATIVE_TYPES, DELIVERY_METHODS, type DeliveryMethod } from '../creative-types.js';
import { RequiredObject } from '../../../common/validation/wrappers.js';

const MAX_ID = 2_147_483_647;
const PAYLOAD_EXAMPLE = { screen: 'rewards', badge: 'explorer' };

const DELIVERY_DATE_EXAMPLE = '2030-03-02T09:00:00Z';
const TEMPLATE_ID = { example: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', minLength: 1, maxLength: 100, description: 'GUID-style template id (1-100 characters)' };
const BEHAVIOR_ID = { example: 12, type: 'integer', minimum: 1, maximum: MAX_ID, description: "A behavior of the creative's campaign" } as const;

/**
 * The delivery settings as validated: one class for both methods, whose rules across members (a date only for
 * scheduled, a behavior only for triggered) CreativesService checks. The document shows the two forms instead
 * (TriggeredDeliveryInput, ScheduledDeliveryInput), so that a body built from it is one the service accepts.
 */
export class IssueAudienceCsvInput {
  @Required()
  @IsIn(DELIVERY_METHODS)
  delivery_method: DeliveryMethod;

  @Optional()
  @IsDatetime()
  scheduled_delivery_date?: string;

  @Optional()
  @IsString()
  @Length(1, 100)
  template_id?: string;

  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  behavior_id?: number;
}

/** Triggered delivery, as the document shows it: a behavior, no date. Documentation only (IssueAudienceCsvInput validates). */
@ApiSchemaOf('Triggered delivery: a notification each time a targeted customer completes behavior_id. No scheduled_delivery_date.', false)
export class TriggeredDeliveryInput {
  @ApiProperty({ enum: ['triggered'], example: 'triggered' }) delivery_method: 'triggered';
  @ApiProperty(BEHAVIOR_ID) behavior_id: number;
  @ApiPropertyOptional(TEMPLATE_ID) template_id?: string;
}

/** Scheduled delivery, as the document shows it: a date, no behavior. Documentation only (IssueAudienceCsvInput validates). */
@ApiSchemaOf('Scheduled delivery: one audience job at scheduled_delivery_date. No behavior_id.', false)
export class ScheduledDeliveryInput {
  @ApiProperty({ enum: ['scheduled'], example: 'scheduled' }) delivery_method: 'scheduled';
  @ApiProperty({ example: DELIVERY_DATE_EXAMPLE, description: `In the future. ${DATETIME_FORMS}` }) scheduled_delivery_date: string;
  @ApiPropertyOptional(TEMPLATE_ID) template_id?: string;
}

/**
 * The schema of issue_audience_csv: one of the two forms, told apart by delivery_method. `type: Object` keeps Nest from
 * adding the member's class (IssueAudienceCsvInput, an `allOf` every body would have to fit as well) beside the forms;
 * Nest leaves the type out where oneOf is given.
 */
const DELIVERY_FORMS = {
  type: Object,
  oneOf: [{ $ref: getSchemaPath(TriggeredDeliveryInput) }, { $ref: getSchemaPath(ScheduledDeliveryInput) }],
  discriminator: {
    propertyName: 'delivery_method',
    mapping: { triggered: getSchemaPath(TriggeredDeliveryInput), scheduled: getSchemaPath(ScheduledDeliveryInput) },
  },
};

/** Members optional on create and update. */
class CreativeContent {
  @ApiPropertyOptional({ example: 'You earned the explorer badge!' })
  @Optional()
  @IsString()
  @Length(0, 10_000)
  message?: string;

  @ApiPropertyOptional({ example: 'https://example.com/rewards', description: 'http or https' })
  @Optional()
  @IsString()
  @Length(1, 2048)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true, require_tld: false }, { message: '$property must be an http(s) URL' })
  url?: string;

  @ApiPropertyOptional({
    example: PAYLOAD_EXAMPLE,
    type: 'object',
    additionalProperties: true,
    description: 'Free-form: any JSON object, sent on as it is',
  })
  @Optional()
  @IsObject()
  payload?: Record<string, unknown>;
}

export class CreateCreativeInput extends CreativeContent {
  @RequiredName({ example: 'Explorer push' })
  name: string;

  @RequiredStatus({ example: 'live', description: 'Only a live creative (in a live group, line item and campaign) is active' })
  status: Status;

  @ApiProperty({ enum: AD_TYPES, example: 'push_message' })
  @Required()
  @IsIn(AD_TYPES)
  ad_type: string;

  @ApiProperty({ enum: CREATIVE_TYPES, example: 'messaging-platform-push', description: 'Must be one the ad_type allows (docs/creatives.md)' })
  @Required()
  @IsIn(CREATIVE_TYPES)
  creative_type: string;

  @ApiProperty({ example: 1, type: 'integer', description: 'An application of the organization' })
  @Required()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  application_id: number;

  @ApiProperty({ ...DELIVERY_FORMS, description: 'How the creative is delivered: triggered (with behavior_id) or scheduled (with scheduled_delivery_date)' })
  @Required()
  @NestedObject()
  @Type(() => IssueAudienceCsvInput)
  issue_audience_csv: IssueAudienceCsvInput;
}

export class UpdateCreativeInput extends CreativeContent {
  @OptionalName({ example: 'Explorer push' })
  name?: string;

  @OptionalStatus({ example: 'paused' })
  status?: Status;

  @ApiPropertyOptional({ enum: AD_TYPES, example: 'push_message' })
  @Optional()
  @IsIn(AD_TYPES)
  ad_type?: string;

  @ApiPropertyOptional({ enum: CREATIVE_TYPES, example: 'messaging-platform-push' })
  @Optional()
  @IsIn(CREATIVE_TYPES)
  creative_type?: string;

  @ApiPropertyOptional({ example: 1, type: 'integer' })
  @Optional()
  @IsInt()
  @Min(1)
  @Max(MAX_ID)
  application_id?: number;

  @ApiPropertyOptional({ ...DELIVERY_FORMS, description: 'When sent, replaces the stored delivery settings as a whole: triggered (with behavior_id) or scheduled (with scheduled_delivery_date)' })
  @Optional()
  @NestedObject()
  @Type(() => IssueAudienceCsvInput)
  issue_audience_csv?: IssueAudienceCsvInput;
}

export class CreateCreativeBody {
  @RequiredObject(CreateCreativeInput)
  creative: CreateCreativeInput;
}

export class UpdateCreativeBody {
  @RequiredObject(UpdateCreativeInput, 'Partial: only the members sent change')
  creative: UpdateCreativeInput;
}

/** Members of the seed's delivery settings that nothing fills yet. */
const Unfilled = () => ApiProperty({ example: null, nullable: true, type: String, description: 'A seed member nothing fills yet: always null' });

export class IssueAudienceCsvView {
  @ApiProperty({ enum: DELIVERY_METHODS, example: 'triggered' }) delivery_method: DeliveryMethod;
  @ApiProperty({ example: null, nullable: true, type: String, format: 'date-time', description: 'Set for scheduled delivery, else null' })
  scheduled_delivery_date: string | null;
  @ApiProperty({ example: '3f2504e0-4f89-11d3-9a0c-0305e82c3301', nullable: true, type: String }) template_id: string | null;
  @ApiProperty({ example: 12, nullable: true, type: 'integer', description: 'Set for triggered delivery, else null' }) behavior_id: number | null;
  @Unfilled() issue_offer_date: string | null;
  @Unfilled() next_ad_type: string | null;
  @ApiProperty({ example: [], type: 'integer', isArray: true, description: 'A seed member nothing fills yet: always empty' }) offer_ids: number[];
  @Unfilled() orientation: string | null;
  @Unfilled() portal_description: string | null;
  @Unfilled() portal_icon: string | null;
  @Unfilled() second_sn_audience_guid: string | null;
  @ApiProperty({ enum: DELIVERY_METHODS, example: 'triggered', description: 'The delivery_method' }) trigger_type: DeliveryMethod;
}

export class CreativeView {
  @ApiProperty({ type: 'integer', example: 7 }) id: number;
  @ApiProperty({ type: 'integer', example: 5 }) creative_group_id: number;
  @ApiProperty({ example: 'Explorer push', description: 'On the answer of a delete it ends with [DELETED AT <timestamp>]' }) name: string;
  @ApiStatus() status: Status;
  @ApiProperty({ enum: AD_TYPES, example: 'push_message' }) ad_type: string;
  @ApiProperty({ enum: CREATIVE_TYPES, example: 'messaging-platform-push' }) creative_type: string;
  @ApiProperty({ type: 'integer', example: 1 }) application_id: number;
  @ApiProperty({ example: 'Push', description: 'Display name of the platform, from creative_type' }) ssap_name: string;
  @ApiProperty({ example: 'You earned the explorer badge!', nullable: true, type: String }) message: string | null;
  @ApiProperty({ example: 'https://example.com/rewards', nullable: true, type: String }) url: string | null;
  @ApiProperty({ example: PAYLOAD_EXAMPLE, nullable: true, type: 'object', additionalProperties: true, description: 'Free-form, as sent' })
  payload: Record<string, unknown> | null;
  @ApiProperty({ type: IssueAudienceCsvView }) issue_audience_csv: IssueAudienceCsvView;
  @ApiTimestamp() created_at: string;
  @ApiTimestamp() updated_at: string;
  @ApiDeletedAt() deleted_at?: string;
}

export class CreativeListResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: [CreativeView], description: 'The creative written or asked for, or the creatives of the group' }) creatives: CreativeView[];
}

/** Whole request bodies, as a client sends them (the members' own examples do not make one: triggered takes no date). */
export const CREATE_CREATIVE_EXAMPLES = {
  triggered: {
    summary: 'A push each time a targeted customer completes a behavior',
    value: {
      creative: {
        name: 'Explorer push',
        status: 'live',
        ad_type: 'push_message',
        creative_type: 'messaging-platform-push',
        application_id: 1,
        message: 'You earned the explorer badge!',
        url: 'https://example.com/rewards',
        payload: PAYLOAD_EXAMPLE,
        issue_audience_csv: { delivery_method: 'triggered', behavior_id: 12 },
      },
    },
  },
  scheduled: {
    summary: 'An audience file built once, at a date',
    value: {
      creative: {
        name: 'Spring audience',
        status: 'live',
        ad_type: 'issue_audience_csv',
        creative_type: 'issue-audience-csv',
        application_id: 1,
        issue_audience_csv: {
          delivery_method: 'scheduled',
          scheduled_delivery_date: DELIVERY_DATE_EXAMPLE,
          template_id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
        },
      },
    },
  },
};

export const UPDATE_CREATIVE_EXAMPLES = {
  partial: { summary: 'Pause it and change its message', value: { creative: { status: 'paused', message: 'Come back for the explorer badge' } } },
  scheduled: {
    summary: 'Deliver it once, at a date, instead',
    value: { creative: { issue_audience_csv: { delivery_method: 'scheduled', scheduled_delivery_date: DELIVERY_DATE_EXAMPLE } } },
  },
};
