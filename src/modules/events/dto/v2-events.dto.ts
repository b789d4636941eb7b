import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { MAX_V2_EVENTS } from '../v2-events.js';
import { PROTOTYPE_KEYS } from '../../../common/validation/reserved-names.js';
import { DEFAULT_LIMITS, LIMIT_SETTINGS } from '../../../config/limits.js';
import { CONTEXT_SCHEMA } from './event-schemas.js';

// The V2 body is read by parseV2Body (v2-events.ts), not by class-validator: these classes only document it.

const BY_DESCRIPTION = 'How many times the event happened: a positive number up to 1,000,000, or a string holding one (e.g. "3"); default 1';

export class V2EventObject {
  @ApiProperty({ minLength: 1, maxLength: 255, example: 'store_visit', description: `The event name goals listen to (not ${PROTOTYPE_KEYS.join(', ')})` })
  name: string;
  @ApiPropertyOptional({ oneOf: [{ type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1_000_000 }, { type: 'string' }], example: 1, description: BY_DESCRIPTION })
  by?: number | string;
  @ApiPropertyOptional({ minLength: 1, maxLength: 255, example: 'c-1', description: "The customer's external_id; required when user_id is absent" })
  external_id?: string;
  @ApiPropertyOptional({
    format: 'uuid',
    example: '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a',
    description: "The customer's id; required when external_id is absent; with both, user_id names the customer",
  })
  user_id?: string;
  @ApiPropertyOptional({
    type: String,
    example: '2026-01-05T10:00:00Z',
    description: 'When the event happened: ISO 8601 (2026-01-05T10:00:00Z, 2026-01-05T10:00:00.000+02:00) or 2026-01-05 10:00:00 +0200; default now',
  })
  occurred_at?: string;
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 255,
    example: 'b7f1c2d4-0e9a-4c1b-8f3e-2a6d5c4b3a21',
    description: 'Idempotency key per api key (shared with V1 and perform): an event with a used one is accepted and ignored',
  })
  transaction_id?: string;
  @ApiPropertyOptional({
    ...CONTEXT_SCHEMA,
    description:
      'A V2 event has no attributes: everything about it goes here, pivots included. A unique goal finds its unique_attribute ' +
      '(e.g. store_id) here, and goal criteria name these members context.<name>. The seed lists app_name, version and ' +
      `downloaded_at (none required by this service). ${CONTEXT_SCHEMA.description}`,
    example: { app_name: 'mobile', store_id: 's-12' },
  })
  context?: Record<string, string | number | boolean>;
}

export class V2EventsBody {
  @ApiProperty({
    oneOf: [
      { $ref: getSchemaPath(V2EventObject) },
      { type: 'array', minItems: 1, maxItems: MAX_V2_EVENTS, items: { $ref: getSchemaPath(V2EventObject) } },
    ],
    description:
      `One event object, or an array of 1 to ${MAX_V2_EVENTS} (more → 413 payload_too_large), for any customers of the organization. ` +
      'Absent, null or [] → 400 missing_data; an event without name or customer, or with a malformed member → 400 missing_data naming ' +
      `it; an event whose name or a context member is named ${PROTOTYPE_KEYS.join(', ')}, or whose context holds a string over the ` +
      `length limit (${DEFAULT_LIMITS.attributeLength.toLocaleString('en-US')} characters by default, ${LIMIT_SETTINGS.attributeLength.env}) → 400 validation naming it.`,
    example: [
      { name: 'store_visit', external_id: 'c-1', context: { app_name: 'mobile', store_id: 's-12' } },
      { name: 'app_download', user_id: '8d4f7a52-2b1e-4c0a-9a57-0f3c1d2e4b6a', by: 1, occurred_at: '2026-01-05T10:00:00Z', transaction_id: 'b7f1c2d4-0e9a-4c1b-8f3e-2a6d5c4b3a21' },
    ],
  })
  events: V2EventObject | V2EventObject[];
}

export class V2EventsResponse {
  @ApiProperty({ enum: ['ok'], example: 'ok', description: 'The events are stored; the workers evaluate them moments later' }) status: 'ok';
}
