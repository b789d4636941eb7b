import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ErrorDetailView } from '../../../common/http/error-envelope.dto.js';

/** An extension's failures in the organization (decision 0025): kept 7 days after the last one. */
export class ExtensionFailuresView {
  @ApiProperty({ type: 'integer', example: 3, description: 'How many times it threw or timed out' }) count: number;
  @ApiProperty({ example: 'test at goal 12: TypeError: Cannot read properties of undefined', description: 'The call, the rule it was made for, and the error' })
  last_error: string;
  @ApiProperty({ format: 'date-time', example: '2026-11-29T10:00:00.000Z' }) last_failed_at: string;
  @ApiProperty({ type: 'integer', nullable: true, example: 42, description: 'The campaign it failed (skipped for that event); null outside a campaign' })
  last_campaign_id: number | null;
}

const FAILURES = {
  type: ExtensionFailuresView,
  description: "Only when it failed in the organization's evaluations in the last 7 days (not for built-ins: their errors are the service's)",
};

/** A stored value its extension's current class refuses (decision 0027). */
export class StaleValueView {
  @ApiProperty({ enum: ['behavior', 'campaign', 'creative_group'], example: 'behavior', description: 'The object that holds it' })
  object_type: 'behavior' | 'campaign' | 'creative_group';
  @ApiProperty({ type: 'integer', example: 42 }) object_id: number;
  @ApiProperty({
    example: 'outcome_config.0.bonus',
    description:
      "The value's dotted path in the object, as a write answers it (without the request's wrapper): a reward's arguments " +
      "(outcome_config.<i>.<kind>), a goal criterion's value (goal_groups.<g>.goals.<i>.achievement.criteria.<c>.value) or a " +
      "targeting criterion's value (targeting.<c>.value)",
  })
  field: string;
  @ApiProperty({ example: 'bonus', description: 'The reward kind or the operator' }) extension: string;
  @ApiProperty({
    type: [ErrorDetailView],
    example: [{ field: 'outcome_config.0.bonus.points', message: 'is not a known attribute' }],
    description: "Why: what the extension's class answers now, each problem under its own dotted field",
  })
  problems: ErrorDetailView[];
}

/** An extension's stored values that no longer validate in the organization. */
export class StaleValuesView {
  @ApiProperty({ type: 'integer', example: 3, description: 'How many stored values its current class refuses' }) count: number;
  @ApiProperty({ type: [StaleValueView], description: 'The first 20 of them, in id order of the behaviors, then campaigns, then creative groups' })
  values: StaleValueView[];
}

const STALE = {
  type: StaleValuesView,
  description:
    "Only for an extension's reward kind or operator with stored values (behaviors' outcomes and goal criteria, campaigns' and " +
    "creative groups' targeting, among the first 5,000 of each naming an extension) that its current class refuses: written " +
    "under an earlier version of it (docs/extending.md, section Changing an extension's arguments)",
};

export class ExtensionView {
  @ApiProperty({ example: 'points', description: "The name rules use: perform's domain, the member of an outcome, or the op of a criterion" }) name: string;
  @ApiProperty({ example: 'core', description: 'core for the built-ins; otherwise the name of the module that defines the extension' }) source: string;
  @ApiProperty({ example: 'Points credited' }) description: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { type: 'integer', minimum: 1, example: 10 },
    description: "The JSON schema of a domain action's or a reward kind's arguments, or of an operator's value, as in this document ($ref into its components)",
  })
  schema: Record<string, unknown>;
  @ApiPropertyOptional(FAILURES) failures?: ExtensionFailuresView;
  @ApiPropertyOptional(STALE) stale?: StaleValuesView;
}

export class EnricherView {
  @ApiProperty({ example: 'store_regions' }) name: string;
  @ApiProperty({ example: 'StoreExtensionsModule', description: 'The name of the module that defines it' }) source: string;
  @ApiProperty({ example: 'The region of the store an event names' }) description: string;
  @ApiPropertyOptional(FAILURES) failures?: ExtensionFailuresView;
}

export class ExtensionsView {
  @ApiProperty({ type: [ExtensionView], description: "What perform's domain may name, with the schema of its args: the built-in complete_campaign, then the extensions'" })
  domain_actions: ExtensionView[];
  @ApiProperty({ type: [ExtensionView], description: "What an outcome_config entry may award: the built-in kinds, then the extensions'" }) reward_kinds: ExtensionView[];
  @ApiProperty({ type: [ExtensionView], description: "The ops a criterion may name: the built-ins, then the extensions'" }) criteria_operators: ExtensionView[];
  @ApiProperty({ type: [EnricherView], description: 'The event enrichers events go through before they are stored, in the order they run (none built in)' })
  event_enrichers: EnricherView[];
}

export class ExtensionsResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok' }) status: 'ok';
  @ApiProperty({ type: ExtensionsView }) extensions: ExtensionsView;
}
