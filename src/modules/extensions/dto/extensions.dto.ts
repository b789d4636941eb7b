import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

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
