import type { INestApplication } from '@nestjs/common';
import { sample } from 'openapi-sampler';
import request, { type Response } from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { TEST_ADMIN_TOKEN } from './support/test-env.js';
import { api, createTenant, TestTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createBehavior } from './factories/behavior.factory.js';
import { ERROR_STATUS, type ErrorCode } from '../src/common/errors/app-error.js';
import { errorExamples, type DocumentedRoute, type ErrorExample } from '../src/common/http/error-examples.js';

/**
 * Contract §1: "Examples in the OpenAPI document are accepted by the service as they stand."
 *
 * Table-driven from the document the app serves, so a new route is covered as soon as it is documented:
 * - every operation with a JSON request body is sent the body Swagger UI / Redoc pre-fill (the media type's own
 *   examples if it has any, else Redocly's openapi-sampler on the schema, which takes each member's example) and must
 *   answer 2xx;
 * - every documented example of a query parameter must be answered 2xx; so must every example of a path parameter,
 *   except those naming objects (ids, permalinks, api keys: PATH_PARAMETERS), which this organization does not have:
 *   those must be looked up (2xx, 401 or 404), not refused (400) nor fail (5xx).
 * Each case runs in an organization of its own (the admin bootstrap), holding only the objects its route needs, so
 * unique names and transaction ids in examples never collide.
 *
 * Ids in examples (a division_id of 7, a deal id of 12) are placeholders: no organization has those objects. They are
 * replaced by the ids of this organization's own objects of the same kind (REFERENCES below), keeping their form (a
 * number, a numeric string, a comma-separated list, an array); every other value is sent as documented. A failure
 * names the operation, the request sent, the replacements made and the answer.
 */

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema & { example?: unknown; examples?: unknown[] };
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, MediaType> };
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, { description?: string; content?: Record<string, MediaType> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  security?: Array<Record<string, string[]>>;
  components: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
}
interface Route extends Operation {
  method: string;
  path: string;
}

const app: INestApplication = await createTestApp();
const document = (await request(app.getHttpServer()).get('/docs-json').expect(200)).body as Document;
afterAll(() => app.close());

const DAY = 86_400_000;
let seq = 0;
const uniq = (prefix: string) => `${prefix} ${++seq}-${Date.now().toString(36)}`;

/**
 * The objects one case needs, created on first use through the API in a fresh organization: a live campaign (running
 * from yesterday for a year) with one behavior, one live line item, creative group and triggered push creative, a
 * customer, an offer, a tier, a division under the root and a webhook.
 */
class World {
  private readonly made = new Map<string, Promise<unknown>>();
  /** `organization`: members of the organization created (multi_org_enabled). */
  constructor(
    private readonly app: INestApplication,
    private readonly organization: Parameters<typeof createTenant>[1] = {},
  ) {}

  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    if (!this.made.has(key)) this.made.set(key, make());
    return this.made.get(key) as Promise<T>;
  }

  private async post<T>(path: string, body: object, answered: string): Promise<T> {
    const res = await api(this.app, await this.tenant()).post(path).send(body);
    if (res.status !== 201) throw new Error(`setting up: POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    const value = res.body[answered];
    return (Array.isArray(value) ? value[0] : value) as T;
  }

  tenant(): Promise<TestTenant> {
    return this.once('tenant', () => createTenant(this.app, this.organization));
  }
  applicationId(): Promise<number> {
    return this.once('application', async () => {
      const rows: Array<{ id: number }> = await this.app
        .get(DataSource)
        .query(`SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1`, [(await this.tenant()).organizationId]);
      return rows[0].id;
    });
  }
  customer() {
    return this.once('customer', async () => createCustomer(this.app, await this.tenant()));
  }
  campaign() {
    return this.once('campaign', async () => createCampaign(this.app, await this.tenant()));
  }
  /** A second campaign, for members naming prerequisite campaigns. */
  otherCampaign() {
    return this.once('other campaign', async () => createCampaign(this.app, await this.tenant()));
  }
  /** The campaign run as an experiment of variants A and B (EndExperimentBody's example ends it with B). */
  experiment() {
    return this.once('experiment', async () => {
      const c = await this.campaign();
      const campaign = { name: c.name, status: c.status, starts_at: c.starts_at, ends_at: c.ends_at, experiment: { holdout_percent: 10, variants: [{ name: 'A' }, { name: 'B' }], metric: { event: 'purchase' } } };
      await api(this.app, await this.tenant()).put(`/management/campaigns/${c.id}`).send({ campaign }).expect(200);
    });
  }
  /** 10,000 points for the customer, earned by an event of a behavior of their own. */
  points() {
    return this.once('points', async () => {
      const tenant = await this.tenant();
      await createBehavior(this.app, tenant, (await this.campaign()).id, { name: 'Earn', event: 'earn', points: 10_000 });
      await api(this.app, tenant).post(`/users/${(await this.customer()).id}/events`).send({ events: { earn: 1 } }).expect(200);
    });
  }
  /** A V1 submission of the customer under this transaction id. */
  submission(transactionId: string) {
    return this.once(`submission ${transactionId}`, async () => {
      const tenant = await this.tenant();
      await api(this.app, tenant).post(`/users/${(await this.customer()).id}/events`).send({ events: { visit: 1 }, transaction_id: transactionId }).expect(200);
    });
  }
  behavior() {
    return this.once('behavior', async () =>
      createBehavior(this.app, await this.tenant(), (await this.campaign()).id, { name: 'Visit', event: 'visit' }),
    );
  }
  lineItem() {
    return this.once('line item', async () =>
      this.post<{ id: number }>(
        `/management/campaigns/${(await this.campaign()).id}/line_items`,
        { line_item: { name: 'Main', status: 'live', ...window() } },
        'line_items',
      ),
    );
  }
  creativeGroup() {
    return this.once('creative group', async () =>
      this.post<{ id: number }>(
        `/management/line_items/${(await this.lineItem()).id}/creative_groups`,
        { creative_group: { name: 'Everyone', status: 'live', ...window() } },
        'creative_groups',
      ),
    );
  }
  creative() {
    return this.once('creative', async () => {
      const creative = {
        name: 'Push',
        status: 'live',
        ad_type: 'push_message',
        creative_type: 'messaging-platform-push',
        application_id: await this.applicationId(),
        message: 'Well done',
        issue_audience_csv: { delivery_method: 'triggered', behavior_id: (await this.behavior()).id },
      };
      const group = await this.creativeGroup();
      return this.post<{ id: number }>(`/management/creative_groups/${group.id}/creatives`, { creative }, 'creatives');
    });
  }
  offer() {
    const offer = { name: uniq('Offer'), points: 20 };
    return this.once('offer', () => this.post<{ id: number }>('/management/offers', { offer }, 'offer'));
  }
  tier() {
    const tier = { name: uniq('Tier'), min_points: 100_000 };
    return this.once('tier', () => this.post<{ id: number; name: string }>('/management/tiers', { tier }, 'tier'));
  }
  division() {
    return this.once('division', async () => {
      const division = { name: uniq('Division'), parent_id: (await this.tenant()).rootDivisionId };
      return this.post<{ id: number }>('/management/divisions', { division }, 'division');
    });
  }
  webhook() {
    const webhook = { url: 'https://hooks.example.com/loyalty', event_types: ['points.credited'] };
    return this.once('webhook', () => this.post<{ id: number }>('/management/webhooks', { webhook }, 'webhook'));
  }
  simulation() {
    return this.once('simulation', async () => {
      const simulation = { from: new Date(Date.now() - DAY).toISOString(), to: new Date().toISOString() };
      const res = await api(this.app, await this.tenant()).post(`/management/campaigns/${(await this.campaign()).id}/simulations`).send({ simulation });
      if (res.status !== 202) throw new Error(`creating a simulation answered ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body.simulation as { id: number };
    });
  }
}

function window() {
  return { starts_at: new Date(Date.now() - DAY).toISOString(), ends_at: new Date(Date.now() + 30 * DAY).toISOString() };
}

/** What each path parameter names, by its name. */
const PATH_PARAMETERS: Record<string, (w: World) => Promise<string | number>> = {
  api_key: async (w) => (await w.tenant()).apiKey,
  id: async (w) => (await w.tenant()).organizationId, // /admin/v1/organizations/{id}
  user_id: async (w) => (await w.customer()).id,
  external_id: async (w) => (await w.customer()).external_id,
  campaign_id: async (w) => (await w.campaign()).id,
  ad_campaign_id: async (w) => (await w.campaign()).id,
  permalink: async (w) => (await w.campaign()).permalink,
  line_item_id: async (w) => (await w.lineItem()).id,
  creative_group_id: async (w) => (await w.creativeGroup()).id,
  creative_id: async (w) => (await w.creative()).id,
  behavior_id: async (w) => (await w.behavior()).id,
  offer_id: async (w) => (await w.offer()).id,
  tier_id: async (w) => (await w.tier()).id,
  division_id: async (w) => (await w.division()).id,
  webhook_id: async (w) => (await w.webhook()).id,
  simulation_id: async (w) => (await w.simulation()).id,
};

/**
 * Members of request examples (bodies and query parameters) that name another object, keyed by the end of their
 * path (array indexes left out): each is replaced by this organization's own objects of that kind, as many as the
 * example names (a list takes them in turn).
 */
const REFERENCES: Array<[suffix: string, (w: World) => Promise<Array<string | number>>]> = [
  ['division_id', async (w) => [(await w.division()).id]],
  ['division_ids', async (w) => [(await w.division()).id, (await w.tenant()).rootDivisionId]],
  ['parent_id', async (w) => [(await w.tenant()).rootDivisionId]],
  ['application_id', async (w) => [await w.applicationId()]],
  ['user_id', async (w) => [(await w.customer()).id]],
  ['customer_ids', async (w) => [(await w.customer()).id]],
  ['campaign_id', async (w) => [(await w.campaign()).id]],
  ['prerequisite_campaign_ids', async (w) => [(await w.otherCampaign()).id]],
  ['behavior_id', async (w) => [(await w.behavior()).id]],
  ['offer_id', async (w) => [(await w.offer()).id]],
  ['tier_id', async (w) => [(await w.tier()).id]],
  ['creative_id', async (w) => [(await w.creative()).id]],
  // Behavior outcomes: {deal: {id}} an offer, {ad_unit: {id}} a creative, {tier: {name}} a tier.
  ['outcome_config.deal.id', async (w) => [(await w.offer()).id]],
  ['outcome_config.ad_unit.id', async (w) => [(await w.creative()).id]],
  ['outcome_config.tier.name', async (w) => [(await w.tier()).name]],
];

/** What an operation needs beyond the objects its path and references name, keyed by operationId. */
const SETUP: Record<string, (w: World) => Promise<unknown>> = {
  // perform completes every behavior of the campaign for the customer: a campaign without behaviors cannot be completed.
  Perform_byUser: (w) => w.behavior(),
  Perform_byUserPermalink: (w) => w.behavior(),
  Perform_byExternal: (w) => w.behavior(),
  Perform_byExternalPermalink: (w) => w.behavior(),
  // A debit spends points the customer has.
  Points_debit: (w) => w.points(),
  Points_debitExternal: (w) => w.points(),
  // A reversal names an earlier submission of the customer: the one its example names (ReversalInput's example).
  Reversals_reverse: (w) => w.submission('ord_1001'),
  Reversals_reverseExternal: (w) => w.submission('ord_1001'),
  // Ending an experiment needs one.
  Experiments_end: (w) => w.experiment(),
};

/** The example's value with `ids` in place of the ids it holds, in the same form. */
function inForm(example: unknown, ids: Array<string | number>): unknown {
  const at = (i: number) => ids[i % ids.length];
  if (Array.isArray(example)) return example.map((item, i) => inForm(item, [at(i)]));
  if (typeof example === 'number') return Number(at(0));
  if (typeof example === 'string') return example.includes(',') ? example.split(',').map((_, i) => String(at(i))).join(',') : String(at(0));
  return example;
}

/** `value` with every referencing member replaced (see REFERENCES); `replaced` collects "path: before → after". */
async function withOwnIds(value: unknown, path: string[], w: World, replaced: string[]): Promise<unknown> {
  const key = path.join('.');
  const reference = REFERENCES.find(([suffix]) => key === suffix || key.endsWith(`.${suffix}`));
  const scalar = (v: unknown) => v !== null && v !== undefined && typeof v !== 'object';
  if (reference && (scalar(value) || (Array.isArray(value) && value.length > 0 && value.every(scalar)))) {
    const after = inForm(value, await reference[1](w));
    replaced.push(`${key}: ${JSON.stringify(value)} → ${JSON.stringify(after)}`);
    return after;
  }
  if (Array.isArray(value)) return Promise.all(value.map((item) => withOwnIds(item, path, w, replaced)));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await withOwnIds(v, [...path, k], w, replaced);
    return out;
  }
  return value;
}

/** `node`, or what it refers to when it is a {"$ref": "#/..."} into the document. */
function deref<T>(node: T): T {
  const ref = (node as { $ref?: string }).$ref;
  if (!ref) return node;
  const keys = ref.slice(2).split('/').map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'));
  const target = keys.reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], document);
  return deref(target as T);
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const routes: Route[] = Object.entries(document.paths).flatMap(([path, item]) =>
  METHODS.filter((method) => item[method]).map((method) => {
    const operation = item[method];
    const responses = operation.responses && Object.fromEntries(Object.entries(operation.responses).map(([status, response]) => [status, deref(response)]));
    return { ...operation, parameters: operation.parameters?.map(deref), responses, method, path };
  }),
);

/** The request body examples of a route, as Swagger UI and Redoc show them: the media type's examples, else a sample of its schema. */
function bodyExamples(route: Route): Array<{ name: string; body: unknown }> {
  const media = route.requestBody && deref(route.requestBody).content?.['application/json'];
  if (!media) return [];
  if (media.examples) {
    return Object.entries(media.examples).map(([name, example]) => ({ name: `example "${name}"`, body: deref(example).value }));
  }
  if (media.example !== undefined) return [{ name: 'example', body: media.example }];
  return [{ name: 'schema sample', body: sample(media.schema as Parameters<typeof sample>[0], { skipReadOnly: true }, document) }];
}

/** Every documented example of a parameter: its own example(s), else its schema's. */
function parameterExamples(parameter: Parameter): unknown[] {
  if (parameter.examples) return Object.values(parameter.examples).map((e) => deref(e).value);
  if (parameter.example !== undefined) return [parameter.example];
  if (parameter.schema?.examples?.length) return parameter.schema.examples;
  if (parameter.schema?.example !== undefined) return [parameter.schema.example];
  return [];
}

function querystring(query: Record<string, unknown>): string {
  // OpenAPI's default for query parameters (style form, explode): an array repeats the name.
  const pairs = Object.entries(query).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => `${encodeURIComponent(name)}=${encodeURIComponent(String(v))}`),
  );
  return pairs.length ? `?${pairs.join('&')}` : '';
}

interface Sent {
  request: string;
  body?: unknown;
  replaced: string[];
  res: Response;
}

/**
 * Sends `route` in world `w`: path parameters name the world's objects unless `pathValues` sets them; the required
 * query parameters get their example (or a sample of their schema) unless `query` sets them; `body` is sent after
 * its references are replaced (unless `asIs`); credentials from the route's security scheme.
 */
async function send(
  w: World,
  route: Route,
  options: { pathValues?: Record<string, unknown>; query?: Record<string, unknown>; body?: unknown; rawBody?: string; asIs?: boolean },
): Promise<Sent> {
  await SETUP[route.operationId]?.(w);
  const replaced: string[] = [];
  let url = route.path;
  for (const parameter of route.parameters ?? []) {
    if (parameter.in !== 'path') continue;
    let value = options.pathValues?.[parameter.name];
    if (value === undefined) {
      const resolve = PATH_PARAMETERS[parameter.name];
      if (!resolve) throw new Error(`${route.operationId}: no object for path parameter "${parameter.name}"; add it to PATH_PARAMETERS`);
      value = await resolve(w);
    }
    url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
  }
  const query: Record<string, unknown> = {};
  for (const parameter of route.parameters ?? []) {
    if (parameter.in !== 'query' || !parameter.required) continue;
    query[parameter.name] = parameterExamples(parameter)[0] ?? sample(parameter.schema as Parameters<typeof sample>[0], {}, document);
  }
  for (const [name, value] of Object.entries({ ...query, ...options.query })) query[name] = options.asIs ? value : await withOwnIds(value, [name], w, replaced);
  url += querystring(query);

  const body = options.body === undefined || options.asIs ? options.body : await withOwnIds(options.body, [], w, replaced);
  let req = request(app.getHttpServer())[route.method as 'get'](url);
  const requirement = (route.security ?? document.security ?? [])[0] ?? {};
  const schemes = Object.keys(requirement).map((name) => document.components.securitySchemes?.[name]);
  if (schemes.some((s) => s?.scheme === 'basic')) {
    const tenant = await w.tenant();
    req = req.auth(tenant.apiKey, tenant.apiSecret);
  } else if (schemes.some((s) => s?.scheme === 'bearer')) {
    req = req.set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`);
  }
  if (options.rawBody !== undefined) req = req.set('Content-Type', 'application/json').send(options.rawBody);
  const res = body === undefined ? await req : await req.send(body as object);
  return { request: `${route.method.toUpperCase()} ${url}`, body: body ?? options.rawBody, replaced, res };
}

const named = (route: Route) => `${route.operationId} (${route.method.toUpperCase()} ${route.path})`;

function report(route: Route, what: string, sent: Sent): string {
  return [
    `${named(route)}: ${what} was answered ${sent.res.status}`,
    `  request: ${sent.request}`,
    ...(sent.body === undefined ? [] : [`  body sent: ${JSON.stringify(sent.body)}`]),
    ...(sent.replaced.length ? [`  ids put in place of the example's: ${sent.replaced.join('; ')}`] : []),
    `  answer: ${sent.res.text || '(empty)'}`,
  ].join('\n');
}

function expectAccepted(ok: boolean, message: string): void {
  if (!ok) throw new Error(message);
}

const success = (status: number) => status >= 200 && status < 300;

const bodyCases = routes.flatMap((route) =>
  bodyExamples(route).map((example) => ({ title: `${named(route)}, ${example.name}`, route, ...example })),
);

const parameterCases = routes.flatMap((route) =>
  (route.parameters ?? [])
    .filter((parameter) => parameter.in === 'query' || parameter.in === 'path')
    .flatMap((parameter) =>
      parameterExamples(parameter).map((example) => ({
        title: `${named(route)}, ${parameter.in} ${parameter.name}=${JSON.stringify(example)}`,
        route,
        parameter,
        example,
      })),
    ),
);

describe('Examples in the OpenAPI document (contract §1)', () => {
  it('the document has operations with JSON request bodies to check', () => {
    expect(bodyCases.length).toBeGreaterThan(0);
  });

  it('the document has parameter examples to check (the pages of every list)', () => {
    expect(parameterCases.map((c) => `${c.parameter.in} ${c.parameter.name}`)).toEqual(expect.arrayContaining(['query limit', 'query page']));
  });

  describe('request body examples are accepted as they stand', () => {
    it.each(bodyCases)('$title', async ({ route, name, body }) => {
      const sent = await send(new World(app), route, { body });
      expectAccepted(success(sent.res.status), report(route, `the ${name} of its request body`, sent));
    });
  });

  describe('parameter examples are accepted', () => {
    it.each(parameterCases)('$title', async ({ route, parameter, example }) => {
      const body = bodyExamples(route)[0]?.body;
      if (parameter.in === 'query') {
        const sent = await send(new World(app), route, { query: { [parameter.name]: example }, body });
        expectAccepted(success(sent.res.status), report(route, `the example of query parameter ${parameter.name}`, sent));
      } else if (PATH_PARAMETERS[parameter.name]) {
        // The example names an object this organization does not have: it must be looked up (401 for an api key,
        // 404 for the others), not refused. Whether it fits the parameter's schema is Redocly's check (npm run lint:openapi).
        const sent = await send(new World(app), route, { pathValues: { [parameter.name]: example }, body });
        const lookedUp = success(sent.res.status) || sent.res.status === 401 || sent.res.status === 404;
        expectAccepted(lookedUp, report(route, `the example of path parameter ${parameter.name}`, sent));
      } else {
        const sent = await send(new World(app), route, { pathValues: { [parameter.name]: example }, body });
        expectAccepted(success(sent.res.status), report(route, `the example of path parameter ${parameter.name}`, sent));
      }
    });
  });
});

/**
 * The 400 examples of each operation's error response (error-examples.ts builds them from the operation) are what the
 * service answers to the request each names: its body example with one member wrong or added, a query parameter out
 * of range, an empty body, text that is not JSON, or (for a route's own validation) the objects it needs.
 */
const errorCases = routes.flatMap((route) => {
  const response = route.responses?.['400'];
  // Responses of a schema of their own (a behavior batch's) keep its example.
  if ((response?.content?.['application/json']?.schema as { $ref?: string } | undefined)?.$ref !== '#/components/schemas/ErrorEnvelope') return [];
  const codes = (response?.description ?? '').split(', ').filter((code): code is ErrorCode => code in ERROR_STATUS);
  const documented: DocumentedRoute = { method: route.method, path: route.path, operation: route as never, document: document as never };
  return errorExamples(documented, codes)
    .filter((example): example is ErrorExample & { request: NonNullable<ErrorExample['request']> } => example.request !== undefined)
    .map((example) => ({ title: `${named(route)}: 400 ${example.key}`, route, example }));
});

/** `body` with the member at `path` set to `value` (added when absent). */
function withMember(body: unknown, path: string[], value: unknown): unknown {
  const copy = structuredClone((body ?? {}) as Record<string, unknown>);
  let at: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
  at[path[path.length - 1]] = value;
  return copy;
}

describe('Error examples in the OpenAPI document are what the service answers', () => {
  const shared = new World(app);
  const multiOrg = new World(app, { multi_org_enabled: true });

  it('the document has 400 examples to check', () => {
    expect(errorCases.length).toBeGreaterThan(0);
  });

  it.each(errorCases)('$title', async ({ route, example }) => {
    const { request: provocation } = example;
    const w = provocation.setup === 'multi-org customer' ? multiOrg : shared;
    const pathValues: Record<string, unknown> = {};
    let expected = example.errors;
    if (provocation.setup === 'root division') pathValues.division_id = (await w.tenant()).rootDivisionId;
    if (provocation.setup === 'tier named by a behavior') {
      const tier = await w.tier();
      const behavior = await createBehavior(app, await w.tenant(), (await w.campaign()).id, { name: 'Gold upgrade', event: 'gold', outcomes: [{ tier: { name: tier.name } }] });
      pathValues.tier_id = tier.id;
      // The example names a behavior of its own; this one has another id.
      const message = (text: string) => text.replace('(12)', `(${behavior.id})`);
      expected = { ...expected, message: message(expected.message), details: expected.details?.map((d) => ({ ...d, message: message(d.message) })) };
    }
    // The route's body example unless the case says otherwise, so that only what the case sends is wrong.
    const bodyExample = bodyExamples(route)[0]?.body;
    const body =
      provocation.rawBody !== undefined
        ? undefined
        : (provocation.body ?? (provocation.member ? withMember(bodyExample, provocation.member.path, provocation.member.value) : bodyExample));
    // Ids the world has no object for (an audience job): any, since the answer comes before they are looked up.
    for (const parameter of route.parameters ?? []) if (parameter.in === 'path' && !PATH_PARAMETERS[parameter.name]) pathValues[parameter.name] ??= 1;
    // Sent as they are: the answer comes before any id in them is looked up, and a case's own ids (division_ids=99) must stay.
    const sent = await send(w, route, { pathValues, query: provocation.query, body, rawBody: provocation.rawBody, asIs: true });
    expect({ request: sent.request, sent: sent.body, status: sent.res.status, answer: sent.res.body }).toEqual({
      request: sent.request,
      sent: sent.body,
      status: 400,
      answer: { status: 'error', errors: expected },
    });
  });
});
