import type { SchemaObject } from '@nestjs/swagger';
import { PROTOTYPE_KEYS } from '../../../common/validation/reserved-names.js';
import { DEFAULT_LIMITS, LIMIT_SETTINGS } from '../../../config/limits.js';
import { MAX_COUNT } from '../events-body.js';

// Request schemas of events that classes cannot express (free members of flat values): V1 events and V2 context.

/** Contract §18, as the deployment's settings leave it by default. */
const MEMBER_LIMITS =
  `String values of at most ${DEFAULT_LIMITS.attributeLength.toLocaleString('en-US')} characters by default (${LIMIT_SETTINGS.attributeLength.env}); ` +
  `member names other than ${PROTOTYPE_KEYS.join(', ')}.`;

/** A flat value of an attribute or a context member; datetimes are strings. */
const FLAT_VALUE: SchemaObject = { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }] };

export const CONTEXT_SCHEMA = {
  type: 'object' as const,
  additionalProperties: FLAT_VALUE,
  description:
    'Flat key → value (boolean, string, integer, decimal or datetime string; no nested objects, arrays or null; keys of 1-100 ' +
    'characters). division_id (digits, e.g. "3") names the division of the event when multi-org is on (a division of the ' +
    `organization, else 400; default the root division); ignored when multi-org is off. ${MEMBER_LIMITS}`,
  example: { app_name: 'mobile', version: '2.1' },
};

/** One V1 event instance given as an object: free attributes plus context and occurred_on. */
const V1_EVENT_OBJECT: SchemaObject = {
  type: 'object',
  description: `One event instance (count 1): free attributes, flat like context, that goal criteria and unique goals read. ${MEMBER_LIMITS}`,
  properties: {
    context: CONTEXT_SCHEMA,
    occurred_on: { type: 'string', format: 'date', description: "The customer's day of the event (YYYY-MM-DD); default the day of date in the customer's time zone" },
  },
  additionalProperties: FLAT_VALUE,
};

export const V1_EVENTS_SCHEMA = {
  type: 'object' as const,
  minProperties: 1,
  description:
    `Event name (1-255 characters; not ${PROTOTYPE_KEYS.join(', ')}) → an integer count (1-${MAX_COUNT}, one instance counting that many), an event object (one instance: ` +
    'its attributes, an optional context and an optional occurred_on), or a non-empty array of event objects (one instance each). ' +
    `At most ${DEFAULT_LIMITS.v1Instances} instances per request by default (${LIMIT_SETTINGS.v1Instances.env}). Absent, null or {} → 400 missing_event_data; anything else malformed → 400 validation.`,
  additionalProperties: {
    oneOf: [
      { type: 'integer', minimum: 1, maximum: MAX_COUNT },
      V1_EVENT_OBJECT,
      { type: 'array', minItems: 1, items: V1_EVENT_OBJECT },
    ],
  } as SchemaObject,
  example: { store_visit: { store_id: 's-12', context: { app_name: 'mobile' } }, app_open: 1 },
};
