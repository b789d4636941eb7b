import type { OpenAPIObject, OperationObject, ParameterObject, ReferenceObject, SchemaObject } from '@nestjs/swagger';
import { loadConfig } from '../../config/config.js';
import type { ErrorCode, ErrorDetail } from '../errors/app-error.js';
import { ORGANIZATION_BUSY } from '../auth/organization-turn.guard.js';

// The examples of the error answers of each operation, built from the operation itself (its path, parameters and
// request body) so that Swagger UI shows, under each status, what that route really answers: a 404 naming the route's
// object, a 400 naming a member of its own body or query. The messages are the service's own (AppError, the validation
// pipe, the guards, the error filter); test/openapi-examples.e2e-spec.ts sends the request of every 400 example and
// checks the answer is the example.

/** The `errors` member of an error answer, as the error filter writes it. */
export interface ErrorBodyExample {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  request_id?: string;
}

/**
 * A request that gets the error from its route, for the tests: `query` added to the URL; the route's request body
 * example with `member` set (a path of member names, `value` replacing or adding it); `body` sent as it is; or
 * `rawBody` sent as text. `setup` names what the organization must hold first, when the route needs more than the
 * objects its path names.
 */
export interface Provocation {
  query?: Record<string, string>;
  member?: { path: string[]; value: unknown };
  body?: unknown;
  rawBody?: string;
  setup?: 'multi-org customer' | 'root division' | 'tier named by a behavior';
}

/**
 * One example of an error answer: its key among the response's examples, a one-line summary, the `errors` member,
 * whether it is the same on every route (kept once in components.examples; a response whose examples all are, once in
 * components.responses), and a request that gets it.
 */
export interface ErrorExample {
  key: string;
  summary: string;
  errors: ErrorBodyExample;
  shared?: boolean;
  request?: Provocation;
}

/** An operation of the document, with its method and path. */
export interface DocumentedRoute {
  method: string;
  path: string;
  operation: OperationObject;
  document: OpenAPIObject;
}

/** The settings' defaults, which the messages of the limits name. */
const DEFAULTS = loadConfig({});

/** What a path parameter names, as its 404 says it (`<object> not found`). */
const PATH_OBJECTS: Record<string, string> = {
  user_id: 'user',
  external_id: 'user',
  campaign_id: 'campaign',
  ad_campaign_id: 'campaign',
  permalink: 'campaign',
  line_item_id: 'line item',
  creative_group_id: 'creative group',
  creative_id: 'creative',
  job_id: 'audience job file',
  behavior_id: 'behavior',
  offer_id: 'offer',
  tier_id: 'tier',
  division_id: 'division',
  webhook_id: 'webhook',
  simulation_id: 'simulation',
  id: 'organization',
};
const CAMPAIGN_PARAMETERS = new Set(['campaign_id', 'ad_campaign_id', 'permalink']);

/** A member no request body has, for the argument_error examples. */
const UNKNOWN_MEMBER = 'color';

/** The examples of one error response of `route`: one or more for each of its `codes`, validation first, invalid_json last. */
export function errorExamples(route: DocumentedRoute, codes: readonly ErrorCode[]): ErrorExample[] {
  const rank = (code: ErrorCode) => (code === 'validation' ? 0 : code === 'invalid_json' ? 2 : 1);
  return [...codes].sort((a, b) => rank(a) - rank(b)).flatMap((code) => BUILDERS[code](route, codes));
}

type Builder = (route: DocumentedRoute, codes: readonly ErrorCode[]) => ErrorExample[];

const one = (key: string, errors: ErrorBodyExample, more: Partial<ErrorExample> = {}): ErrorExample => ({ key, summary: errors.message, errors, ...more });
const isAdmin = (route: DocumentedRoute) => route.path.startsWith('/admin/');
const failures = DEFAULTS.authFailuresPerMinute;

const BUILDERS: Record<ErrorCode, Builder> = {
  unauthorized: (route) =>
    isAdmin(route)
      ? [
          one('admin_unauthorized', { code: 'unauthorized', message: 'unauthorized' }, { shared: true }),
          one('admin_disabled', { code: 'unauthorized', message: 'the admin API is disabled: set ADMIN_TOKEN to enable it' }, { shared: true }),
        ]
      : [one('unauthorized', { code: 'unauthorized', message: 'unknown or inactive api key, or missing or wrong api secret' }, { shared: true })],
  rate_limited: (route) =>
    isAdmin(route)
      ? [one('admin_failed_authentications', { code: 'rate_limited', message: `more than ${failures} failed authentications in one minute for the admin token from this address` }, { shared: true })]
      : [
          one('rate_limited', { code: 'rate_limited', message: `more than ${DEFAULTS.rateLimitPerMinute} requests in one minute for this api key` }, { shared: true }),
          one('failed_authentications', { code: 'rate_limited', message: `more than ${failures} failed authentications in one minute for this api key from this address` }, { shared: true }),
          one('organization_busy', { code: 'rate_limited', message: ORGANIZATION_BUSY }, { shared: true }),
        ],
  not_found: (route, codes) => notFound(route, codes),
  No_active_campaign_found: () => [one('No_active_campaign_found', { code: 'No_active_campaign_found', message: 'no live campaign matches the request' }, { shared: true })],
  duplicate_transaction: (route) => [
    one('duplicate_transaction', { code: 'duplicate_transaction', message: `transaction_id ${transactionId(route)} has already been processed` }),
  ],
  already_reversed: (route) => [one('already_reversed', { code: 'already_reversed', message: `transaction_id ${transactionId(route)} has already been reversed` })],
  not_processed_yet: (route) => [
    one('not_processed_yet', { code: 'not_processed_yet', message: `transaction_id ${transactionId(route)} is still waiting in the queue; reverse it once processed` }),
  ],
  already_ended: () => [one('already_ended', { code: 'already_ended', message: 'the experiment has already ended (2026-03-31T12:00:00.000Z, winner B)' })],
  insufficient_points: (route) => insufficientPoints(route),
  failed_to_perform: () => [
    one('failed_to_perform', { code: 'failed_to_perform', message: 'cannot complete the campaign: the customer has already completed the campaign' }, { shared: true }),
  ],
  not_available: (route) => notAvailable(route),
  payload_too_large: (route) => payloadTooLarge(route),
  internal_error: () => [
    one('internal_error', { code: 'internal_error', message: 'internal error', request_id: '0b1e5c2a-4f6d-4e8b-9a3c-7d2f1e6b5a90' }, { shared: true }),
  ],
  service_unavailable: (route) =>
    route.path === '/health/ready'
      ? [one('not_ready', { code: 'service_unavailable', message: 'not ready: redis unreachable', details: [{ field: 'redis', message: 'unreachable' }] })]
      : [one('service_unavailable', { code: 'service_unavailable', message: 'a backing service is unreachable; retry later' }, { shared: true })],
  invalid_json: () => [one('invalid_json', { code: 'invalid_json', message: 'request body is not valid JSON' }, { shared: true, request: { rawBody: '{"' } })],
  missing_event_data: () => [one('missing_event_data', { code: 'missing_event_data', message: 'the request has no event data: send events' }, { request: { body: {} } })],
  missing_data: (route) => missingData(route),
  argument_error: (route) => argumentError(route),
  validation: (route) => validation(route),
};

// --- the route's objects and request body ---

/** The 404s of the objects the path names, the route's own (its last parameter) first. */
function notFound(route: DocumentedRoute, codes: readonly ErrorCode[]): ErrorExample[] {
  // Where the route answers No_active_campaign_found for its campaign (V1 events), not_found is about the customer.
  const skipCampaign = codes.includes('No_active_campaign_found');
  const parameters = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).reverse();
  const objects = parameters
    .filter((name) => !(skipCampaign && CAMPAIGN_PARAMETERS.has(name)))
    .map((name) => (name === 'api_key' ? (isAdmin(route) ? 'api key' : undefined) : PATH_OBJECTS[name]))
    .filter((object): object is string => object !== undefined);
  if (route.path.endsWith('/events/reversals')) objects.push('transaction');
  const unique = [...new Set(objects)];
  return unique.map((object, i) => one(i === 0 ? 'not_found' : `not_found_${object.replace(/ /g, '_')}`, { code: 'not_found', message: `${object} not found` }));
}

/** `node`, or what it refers to (`$ref`, or an `allOf` of one reference, as Nest writes a described member). */
function resolve(document: OpenAPIObject, node: SchemaObject | ReferenceObject | undefined): SchemaObject | undefined {
  if (!node) return undefined;
  if ('$ref' in node) return resolve(document, document.components?.schemas?.[node.$ref.split('/').pop()!]);
  if (node.allOf?.length === 1 && !node.properties) return resolve(document, node.allOf[0]);
  return node;
}

/** The request body's schema and its component name. */
function requestBody(route: DocumentedRoute): { name: string; schema: SchemaObject } | undefined {
  const body = route.operation.requestBody as { content?: Record<string, { schema?: SchemaObject | ReferenceObject }> } | undefined;
  const schema = body?.content?.['application/json']?.schema;
  if (!schema) return undefined;
  const name = '$ref' in schema ? schema.$ref.split('/').pop()! : '';
  const resolved = resolve(route.document, schema);
  return resolved && { name, schema: resolved };
}

/**
 * The body's wrappers: its required members holding an object of a schema of its own (`campaign`, `organization` and
 * `application`; not V1's `events`, a map of the body itself).
 */
function wrappers(route: DocumentedRoute): string[] {
  const body = requestBody(route)?.schema;
  if (!body) return [];
  return (body.required ?? []).filter((name) => {
    const member = body.properties?.[name];
    const named = member !== undefined && ('$ref' in member || (member.allOf?.length === 1 && '$ref' in member.allOf[0]));
    return named && resolve(route.document, member)?.properties !== undefined;
  });
}

/** The documented example of a member of the body or of its wrapper. */
function memberExample(route: DocumentedRoute, name: string): unknown {
  const body = requestBody(route)?.schema;
  for (const holder of [body, ...wrappers(route).map((w) => resolve(route.document, body?.properties?.[w]))]) {
    const member = resolve(route.document, holder?.properties?.[name]);
    if (member?.example !== undefined) return member.example;
  }
  return undefined;
}

function transactionId(route: DocumentedRoute): string {
  const example = memberExample(route, 'transaction_id');
  return typeof example === 'string' ? example : 'ord_1001';
}

// --- 4xx of the body ---

function insufficientPoints(route: DocumentedRoute): ErrorExample[] {
  const asked = Number(memberExample(route, 'points') ?? 50);
  const available = Math.max(0, asked - 10);
  const field = `${wrappers(route)[0] ?? 'debit'}.points`;
  return [
    one('insufficient_points', {
      code: 'insufficient_points',
      message: `the customer has ${available} points available, fewer than the ${asked} to debit`,
      details: [{ field, message: `must be at most ${available}, the points available` }],
    }),
  ];
}

function notAvailable(route: DocumentedRoute): ErrorExample[] {
  const domain = resolve(route.document, requestBody(route)?.schema.properties?.domain);
  const names = (domain?.enum ?? ['complete_campaign']).join(', ');
  return [
    one(
      'not_available',
      { code: 'not_available', message: `domain "award_badge" is not available; available: ${names}`, details: [{ field: 'domain', message: `must be one of ${names}` }] },
      { request: { member: { path: ['domain'], value: 'award_badge' } } },
    ),
  ];
}

function payloadTooLarge(route: DocumentedRoute): ErrorExample[] {
  const examples = [one('payload_too_large', { code: 'payload_too_large', message: 'request body is too large' }, { shared: true })];
  // V2 events: more events than a request may hold.
  const events = requestBody(route)?.name === 'V2EventsBody' ? resolve(route.document, requestBody(route)?.schema.properties?.events) : undefined;
  const batch = events?.oneOf?.map((form) => resolve(route.document, form)).find((form) => form?.type === 'array');
  if (batch?.maxItems) {
    const max = batch.maxItems;
    examples.push(one('too_many_events', { code: 'payload_too_large', message: `at most ${max} events per request, got ${max + 1}` }));
  }
  return examples;
}

function missingData(route: DocumentedRoute): ErrorExample[] {
  const body = requestBody(route);
  if (body?.name === 'V2EventsBody') return [one('missing_data', { code: 'missing_data', message: 'missing event data: send events' }, { request: { body: {} } })];
  const wrapped = wrappers(route);
  const missing = wrapped.length ? wrapped : (body?.schema.required ?? []);
  if (!missing.length) return [];
  const details = missing.map((field) => ({ field, message: 'is required' }));
  return [one('missing_data', { code: 'missing_data', message: `missing ${missing.join(', ')}`, details }, { request: { body: {} } })];
}

function argumentError(route: DocumentedRoute): ErrorExample[] {
  const wrapper = wrappers(route)[0];
  const path = wrapper ? [wrapper, UNKNOWN_MEMBER] : [UNKNOWN_MEMBER];
  const field = path.join('.');
  return [
    one(
      'argument_error',
      { code: 'argument_error', message: `unknown attributes: ${field}`, details: [{ field, message: 'is not a known attribute' }] },
      { request: { member: { path, value: 'red' } } },
    ),
  ];
}

// --- validation: a member of the route ---

const validationExample = (field: string, message: string, request: Provocation): ErrorExample[] => [
  one('validation', { code: 'validation', message: `${field} ${message}`, details: [{ field, message }] }, { request }),
];

/** Routes whose validation error is one of their own, found by method and path. */
const OWN_VALIDATION: Array<{ matches: RegExp; field: string; message: string; request: Provocation }> = [
  {
    matches: /^GET .*\/users\/\{[a-z_]+\}\/events$/,
    field: 'division_ids',
    message: 'are not divisions of this organization: 99',
    request: { query: { division_ids: '99' }, setup: 'multi-org customer' },
  },
  {
    matches: /^GET .*\/campaigns\/\{campaign_id\}\/analytics$/,
    field: 'granularity',
    message: 'must be one of day, week, month',
    request: { query: { granularity: 'year' } },
  },
  {
    matches: /^POST .*\/campaigns\/\{campaign_id\}\/experiment\/end$/,
    field: 'winner',
    message: 'must be longer than or equal to 1 characters',
    request: { body: { winner: '' } },
  },
  {
    matches: /^DELETE .*\/divisions\/\{division_id\}$/,
    field: 'division_id',
    message: 'is the root division, which cannot be deleted',
    request: { setup: 'root division' },
  },
  {
    matches: /^DELETE .*\/tiers\/\{tier_id\}$/,
    field: 'tier_id',
    message: 'cannot be deleted: the tier outcome of behaviors "Gold upgrade" (12) names this tier; change those behaviors first',
    request: { setup: 'tier named by a behavior' },
  },
];

/**
 * The route's 400 validation: its own (OWN_VALIDATION), else a list parameter given a value it does not take
 * (perform's sections[]), a page parameter out of its range, a V1 event count of 0, a wrapper member outside its
 * enum (an unknown status, or the wrapper's last enumerated member), or the wrapper sent as a list.
 */
function validation(route: DocumentedRoute): ErrorExample[] {
  const own = OWN_VALIDATION.find((v) => v.matches.test(`${route.method.toUpperCase()} ${route.path}`));
  if (own) return validationExample(own.field, own.message, own.request);
  const parameters = (route.operation.parameters ?? []) as ParameterObject[];
  const query = parameters.filter((p) => p.in === 'query');
  const list = query.find((p) => p.name.endsWith('[]') && resolve(route.document, resolve(route.document, p.schema)?.items)?.enum);
  if (list) {
    const allowed = (resolve(route.document, resolve(route.document, list.schema)?.items)?.enum ?? []).filter((v) => v !== '');
    return validationExample(list.name, `must be one of ${allowed.join(', ')} (got "rewards")`, { query: { [list.name]: 'rewards' } });
  }
  const page = query.find((p) => {
    const schema = resolve(route.document, p.schema);
    return schema?.type === 'integer' && schema.minimum !== undefined && schema.maximum !== undefined;
  });
  if (page) {
    const { minimum, maximum } = resolve(route.document, page.schema)!;
    return validationExample(page.name, `must be an integer from ${minimum} to ${maximum}, in decimal digits without sign or leading zero`, {
      query: { [page.name]: String(minimum! - 1) },
    });
  }
  const body = requestBody(route);
  if (body?.name === 'V1EventBody') {
    // The events map's check names the event inside `events`: the detail's message goes on from the field.
    const message = '.purchase must be a positive integer count (at most 1000000)';
    return [
      one('validation', { code: 'validation', message: `events${message}`, details: [{ field: 'events', message }] }, { request: { member: { path: ['events'], value: { purchase: 0 } } } }),
    ];
  }
  const wrapper = wrappers(route)[0];
  if (!wrapper) return [];
  const members = resolve(route.document, body?.schema.properties?.[wrapper])?.properties ?? {};
  // Its status, else its last enumerated member: the first may decide which others apply (a tier policy's basis).
  const enumerations = Object.entries(members).filter(([, schema]) => {
    const member = resolve(route.document, schema);
    return member?.type === 'string' && member.enum !== undefined;
  });
  const enumerated = enumerations.find(([name]) => name === 'status') ?? enumerations[enumerations.length - 1];
  if (enumerated) {
    const [name, schema] = enumerated;
    const values = (resolve(route.document, schema)?.enum ?? []).join(', ');
    return validationExample(`${wrapper}.${name}`, `must be one of the following values: ${values}`, { member: { path: [wrapper, name], value: 'unknown' } });
  }
  return validationExample(wrapper, 'must be an object', { member: { path: [wrapper], value: [] } });
}
