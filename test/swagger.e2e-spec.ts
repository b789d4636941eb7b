import type { INestApplication } from '@nestjs/common';
import { sample } from 'openapi-sampler';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createTestApp } from './support/app.js';
import { ERROR_STATUS } from '../src/common/errors/app-error.js';
import { api, createTenant } from './factories/tenant.factory.js';
import { createCampaign } from './factories/campaign.factory.js';
import { createCustomer } from './factories/customer.factory.js';
import { createBehavior } from './factories/behavior.factory.js';

interface SchemaObject {
  $ref?: string;
  type?: string;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  example?: unknown;
  enum?: unknown[];
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
  additionalProperties?: boolean | SchemaObject;
  discriminator?: { propertyName: string; mapping?: Record<string, string> };
}

interface ErrorExample {
  $ref?: string;
  summary?: string;
  value?: { status: string; errors: { code: string; message: string; details?: unknown[] } };
}

interface Operation {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; schema?: SchemaObject; style?: string; explode?: boolean }>;
  requestBody?: { content: Record<string, { schema: SchemaObject }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: SchemaObject; examples?: Record<string, ErrorExample> }> }>;
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, SchemaObject>;
    securitySchemes: Record<string, Record<string, string>>;
    examples?: Record<string, ErrorExample>;
    responses?: Operation['responses'];
  };
}

/** `document` with each response kept in components.responses put in place, as Swagger UI shows it. */
function responsesInPlace(document: OpenApiDocument): OpenApiDocument {
  for (const operation of Object.values(document.paths).flatMap((item) => Object.values(item))) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const ref = (response as { $ref?: string }).$ref;
      if (ref) operation.responses[status] = document.components.responses![ref.split('/').pop()!];
    }
  }
  return document;
}

const PRIV = '/priv/v1/apps/{api_key}';

/** The HTTP status of each error code (contract's error table). */
const errorStatus: Record<string, number> = ERROR_STATUS;

/** Every route the API serves, as `METHOD /openapi/{path}`. */
const EXPECTED_ROUTES = [
  'POST /priv/v2/apps/{api_key}/events',
  'POST /priv/v2/apps/{api_key}/users/{user_id}/campaigns/{ad_campaign_id}/perform',
  'POST /priv/v2/apps/{api_key}/users/{user_id}/external/campaigns/{permalink}/perform',
  'POST /priv/v2/apps/{api_key}/external/users/{external_id}/campaigns/{ad_campaign_id}/perform',
  'POST /priv/v2/apps/{api_key}/external/users/{external_id}/external/campaigns/{permalink}/perform',
  'GET /metrics',
  'GET /health/live',
  'GET /health/ready',
  'POST /admin/v1/organizations',
  'POST /admin/v1/organizations/{id}/applications',
  'DELETE /admin/v1/api_keys/{api_key}',
  `POST ${PRIV}/management/divisions`,
  `GET ${PRIV}/management/divisions`,
  `GET ${PRIV}/management/divisions/{division_id}`,
  `PUT ${PRIV}/management/divisions/{division_id}`,
  `DELETE ${PRIV}/management/divisions/{division_id}`,
  `GET ${PRIV}/management/extensions`,
  `GET ${PRIV}/management/audit_log`,
  `GET ${PRIV}/events/rejected`,
  `POST ${PRIV}/users`,
  `GET ${PRIV}/users/{user_id}`,
  `GET ${PRIV}/users/{user_id}/tier`,
  `GET ${PRIV}/external/users/{external_id}/tier`,
  `GET ${PRIV}/users/{user_id}/tier/history`,
  `GET ${PRIV}/external/users/{external_id}/tier/history`,
  `PUT ${PRIV}/users/{user_id}`,
  `GET ${PRIV}/external/users/{external_id}`,
  `PUT ${PRIV}/external/users/{external_id}`,
  `DELETE ${PRIV}/users/{user_id}`,
  `DELETE ${PRIV}/external/users/{external_id}`,
  `GET ${PRIV}/users/{user_id}/export`,
  `GET ${PRIV}/external/users/{external_id}/export`,
  `GET ${PRIV}/users/{user_id}/timeline`,
  `GET ${PRIV}/external/users/{external_id}/timeline`,
  `GET ${PRIV}/users/{user_id}/notifications`,
  `GET ${PRIV}/external/users/{external_id}/notifications`,
  `GET ${PRIV}/users/{user_id}/points`,
  `GET ${PRIV}/external/users/{external_id}/points`,
  `POST ${PRIV}/users/{user_id}/points/debits`,
  `POST ${PRIV}/external/users/{external_id}/points/debits`,
  `POST ${PRIV}/users/{user_id}/events/reversals`,
  `POST ${PRIV}/external/users/{external_id}/events/reversals`,
  `GET ${PRIV}/management/settings`,
  `PUT ${PRIV}/management/settings`,
  `POST ${PRIV}/management/tiers`,
  `GET ${PRIV}/management/tiers`,
  `GET ${PRIV}/management/tiers/{tier_id}`,
  `PUT ${PRIV}/management/tiers/{tier_id}`,
  `DELETE ${PRIV}/management/tiers/{tier_id}`,
  `POST ${PRIV}/management/tier_policy/preview`,
  `POST ${PRIV}/management/campaigns`,
  `GET ${PRIV}/management/campaigns`,
  `GET ${PRIV}/management/campaigns/{campaign_id}`,
  `PUT ${PRIV}/management/campaigns/{campaign_id}`,
  `DELETE ${PRIV}/management/campaigns/{campaign_id}`,
  `GET ${PRIV}/management/external/campaigns/{permalink}`,
  `PUT ${PRIV}/management/external/campaigns/{permalink}`,
  `DELETE ${PRIV}/management/external/campaigns/{permalink}`,
  `GET ${PRIV}/management/campaigns/{campaign_id}/navigation`,
  `POST ${PRIV}/management/campaigns/{campaign_id}/line_items`,
  `GET ${PRIV}/management/campaigns/{campaign_id}/line_items`,
  `GET ${PRIV}/management/line_items/{line_item_id}`,
  `PUT ${PRIV}/management/line_items/{line_item_id}`,
  `DELETE ${PRIV}/management/line_items/{line_item_id}`,
  `POST ${PRIV}/management/campaigns/{campaign_id}/behaviors/_batch`,
  `GET ${PRIV}/management/campaigns/{campaign_id}/behaviors`,
  `GET ${PRIV}/management/campaigns/{campaign_id}/analytics`,
  `GET ${PRIV}/management/campaigns/{campaign_id}/experiment`,
  `POST ${PRIV}/management/campaigns/{campaign_id}/experiment/end`,
  `GET ${PRIV}/management/behaviors/{behavior_id}`,
  `PUT ${PRIV}/management/behaviors/{behavior_id}`,
  `DELETE ${PRIV}/management/behaviors/{behavior_id}`,
  `POST ${PRIV}/management/offers`,
  `GET ${PRIV}/management/offers`,
  `GET ${PRIV}/management/offers/{offer_id}`,
  `PUT ${PRIV}/management/offers/{offer_id}`,
  `DELETE ${PRIV}/management/offers/{offer_id}`,
  `POST ${PRIV}/management/line_items/{line_item_id}/creative_groups`,
  `GET ${PRIV}/management/line_items/{line_item_id}/creative_groups`,
  `GET ${PRIV}/management/creative_groups/{creative_group_id}`,
  `PUT ${PRIV}/management/creative_groups/{creative_group_id}`,
  `DELETE ${PRIV}/management/creative_groups/{creative_group_id}`,
  `POST ${PRIV}/management/creative_groups/{creative_group_id}/creatives`,
  `GET ${PRIV}/management/creative_groups/{creative_group_id}/creatives`,
  `GET ${PRIV}/management/creatives/{creative_id}`,
  `PUT ${PRIV}/management/creatives/{creative_id}`,
  `DELETE ${PRIV}/management/creatives/{creative_id}`,
  `GET ${PRIV}/management/creatives/{creative_id}/audience_jobs`,
  `GET ${PRIV}/management/creatives/{creative_id}/audience_jobs/{job_id}/download`,
  `POST ${PRIV}/management/campaigns/{campaign_id}/simulations`,
  `GET ${PRIV}/management/campaigns/{campaign_id}/simulations`,
  `GET ${PRIV}/management/simulations/{simulation_id}`,
  `DELETE ${PRIV}/management/simulations/{simulation_id}`,
  `POST ${PRIV}/management/webhooks`,
  `GET ${PRIV}/management/webhooks`,
  `DELETE ${PRIV}/management/webhooks/{webhook_id}`,
  `GET ${PRIV}/management/webhooks/{webhook_id}/deliveries`,
  `POST ${PRIV}/users/{user_id}/events`,
  `GET ${PRIV}/users/{user_id}/events`,
  `POST ${PRIV}/external/users/{external_id}/events`,
  `GET ${PRIV}/external/users/{external_id}/events`,
  `POST ${PRIV}/users/{user_id}/campaigns/{campaign_id}/events`,
  `POST ${PRIV}/external/users/{external_id}/campaigns/{campaign_id}/events`,
  `POST ${PRIV}/users/{user_id}/external/campaigns/{permalink}/events`,
  `POST ${PRIV}/external/users/{external_id}/external/campaigns/{permalink}/events`,
];

describe('Swagger', () => {
  let app: INestApplication;
  let doc: OpenApiDocument;

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, path, op })));
  const operation = (route: string): Operation => {
    const [method, path] = route.split(' ');
    const op = doc.paths[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`${route} is not documented`);
    return op;
  };
  const resolve = (schema: SchemaObject): SchemaObject => {
    if (schema.allOf?.length === 1 && !schema.properties) return resolve(schema.allOf[0]);
    if (!schema.$ref) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const found = doc.components.schemas[name];
    if (!found) throw new Error(`${schema.$ref} does not resolve`);
    return found;
  };
  /** The examples of an error response, with those kept in components.examples put in place. */
  const errorExamples = (route: string, status: string): Record<string, ErrorExample> => {
    const examples = operation(route).responses[status]?.content?.['application/json']?.examples ?? {};
    return Object.fromEntries(
      Object.entries(examples).map(([key, example]) => [key, example.$ref ? doc.components.examples![example.$ref.split('/').pop()!] : example]),
    );
  };
  const requestSchema = (route: string): SchemaObject => {
    const body = operation(route).requestBody;
    if (!body) throw new Error(`${route} documents no request body`);
    return resolve(body.content['application/json'].schema);
  };

  beforeAll(async () => {
    app = await createTestApp();
    const res = await request(app.getHttpServer()).get('/docs-json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = responsesInPlace(res.body);
  });
  afterAll(() => app.close());

  it('GET /docs answers the Swagger UI as HTML', async () => {
    const res = await request(app.getHttpServer()).get('/docs').redirects(2);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toMatch(/swagger-ui/i);
  });

  it('GET /docs-json answers an OpenAPI 3 document', () => {
    expect(doc.openapi).toMatch(/^3\./);
  });

  it('says where the queue dashboard is and how to log in to it', () => {
    expect(doc.info.description).toContain('/admin/queues');
    expect(doc.info.description).toContain('ADMIN_TOKEN');
  });

  it('writes the Bearer placeholder in a code span, where Swagger UI shows it (elsewhere <token> is taken for an HTML tag)', () => {
    const description = doc.info.description!;
    expect(description).toContain('`Authorization: Bearer <token>`');
    // Outside code spans, no <word> the page would swallow.
    expect(description.replace(/`[^`]*`/g, '')).not.toMatch(/<[A-Za-z_][^>]*>/);
  });

  it('has no placeholder outside a code span in any description or summary (Swagger UI would drop it as an HTML tag)', () => {
    const found: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if ((key === 'description' || key === 'summary') && typeof value === 'string') {
          if (/<[A-Za-z_][^<>]*>/.test(value.replace(/`[^`]*`/g, ''))) found.push(`${at}/${key}: ${value}`);
        } else if (key !== 'example' && key !== 'examples') walk(value, `${at}/${key}`);
      }
    };
    walk(doc, '');
    expect(found).toEqual([]);
  });

  it('names the five queues the dashboard shows', () => {
    expect(doc.info.description).toContain('events, webhooks, audience-jobs, simulations and reward-effects queues');
  });

  it('documents every route of the app', () => {
    expect(operations().map((o) => o.route).sort()).toEqual([...EXPECTED_ROUTES].sort());
  });

  it('documents every route the HTTP server actually serves (outside /docs)', () => {
    const router = (app.getHttpAdapter().getInstance() as { router: { stack: Array<{ route?: { path: string; methods: Record<string, boolean> } }> } }).router;
    const served = router.stack
      .filter((layer) => layer.route && !layer.route.path.startsWith('/docs'))
      .flatMap(({ route }) => Object.keys(route!.methods).map((m) => `${m.toUpperCase()} ${route!.path.replace(/:(\w+)/g, '{$1}')}`));
    expect(served.length).toBeGreaterThan(0);
    expect(served.sort()).toEqual(operations().map((o) => o.route).sort());
  });

  it('declares the HTTP Basic security scheme named api_key and applies it to every /priv route, and only there', () => {
    expect(doc.components.securitySchemes.api_key).toEqual(expect.objectContaining({ type: 'http', scheme: 'basic' }));
    for (const { route, path, op } of operations()) {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      if (path.startsWith('/priv/')) {
        expect({ route, schemes }).toEqual({ route, schemes: ['api_key'] });
        expect({ route, params: op.parameters?.filter((p) => p.in === 'path' && p.name === 'api_key').length }).toEqual({ route, params: 1 });
      } else {
        expect({ route, schemes }).toEqual({ route, schemes: expect.not.arrayContaining(['api_key']) });
      }
    }
  });

  it('applies the admin bearer scheme to the admin routes', () => {
    expect(doc.components.securitySchemes.admin).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    for (const { route, path, op } of operations().filter((o) => o.path.startsWith('/admin/'))) {
      expect({ route, path, schemes: (op.security ?? []).flatMap((s) => Object.keys(s)) }).toEqual({ route, path, schemes: ['admin'] });
    }
  });

  it('documents the request body of POST users: the user wrapper with every member and examples', () => {
    const body = requestSchema(`POST ${PRIV}/users`);
    expect(body.required).toEqual(['user']);
    const user = resolve(body.properties!.user);
    expect(user.required).toEqual(['external_id']);
    expect(Object.keys(user.properties!).sort()).toEqual(['attributes', 'division_id', 'external_id', 'tags', 'time_zone']);
    for (const [name, property] of Object.entries(user.properties!)) expect({ name, example: property.example }).toEqual({ name, example: expect.anything() });
    expect(user.properties!.external_id.example).toBe('c-1');
  });

  it('documents the request body of PUT users without required members', () => {
    for (const route of [`PUT ${PRIV}/users/{user_id}`, `PUT ${PRIV}/external/users/{external_id}`]) {
      const user = resolve(requestSchema(route).properties!.user);
      expect({ route, required: user.required ?? [] }).toEqual({ route, required: [] });
      expect(Object.keys(user.properties!).sort()).toEqual(['attributes', 'division_id', 'external_id', 'tags', 'time_zone']);
    }
  });

  it('documents the request body of POST organizations with examples', () => {
    const body = requestSchema('POST /admin/v1/organizations');
    expect(body.required?.sort()).toEqual(['application', 'organization']);
    const organization = resolve(body.properties!.organization);
    expect(organization.required).toEqual(['name']);
    expect(organization.properties).toEqual({
      name: expect.objectContaining({ type: 'string', example: 'Acme' }),
      multi_org_enabled: expect.objectContaining({ type: 'boolean', example: false }),
      time_zone: expect.objectContaining({ type: 'string', example: 'UTC' }),
      points_expire_after_days: expect.objectContaining({ type: 'integer', nullable: true, minimum: 1, example: 365 }),
      tier_policy: expect.objectContaining({ allOf: [{ $ref: '#/components/schemas/TierPolicyInput' }] }),
    });
    const application = resolve(body.properties!.application);
    expect(application.properties!.name).toEqual(expect.objectContaining({ type: 'string', example: 'Web' }));
  });

  it('documents the error envelope', () => {
    const envelope = doc.components.schemas.ErrorEnvelope;
    expect(envelope.required?.sort()).toEqual(['errors', 'status']);
    const errors = resolve(envelope.properties!.errors);
    expect(errors.required?.sort()).toEqual(['code', 'message']);
    expect(Object.keys(errors.properties!)).toEqual(expect.arrayContaining(['code', 'message', 'details']));
    const detail = resolve(errors.properties!.details.items!);
    expect(Object.keys(detail.properties!).sort()).toEqual(['field', 'message']);
  });

  it.each([
    [`POST ${PRIV}/users`, ['400', '401', '429']],
    [`GET ${PRIV}/users/{user_id}`, ['401', '404', '429']],
    [`PUT ${PRIV}/users/{user_id}`, ['400', '401', '404', '429']],
    [`GET ${PRIV}/external/users/{external_id}`, ['401', '404', '429']],
    [`PUT ${PRIV}/external/users/{external_id}`, ['400', '401', '404', '429']],
    [`GET ${PRIV}/users/{user_id}/timeline`, ['400', '401', '404', '429']],
    [`GET ${PRIV}/external/users/{external_id}/timeline`, ['400', '401', '404', '429']],
    [`GET ${PRIV}/users/{user_id}/notifications`, ['400', '401', '404', '429']],
    [`GET ${PRIV}/external/users/{external_id}/notifications`, ['400', '401', '404', '429']],
    ['POST /admin/v1/organizations', ['400', '401']],
    ['POST /admin/v1/organizations/{id}/applications', ['400', '401', '404']],
    ['DELETE /admin/v1/api_keys/{api_key}', ['401', '404']],
    ['GET /health/ready', ['503']],
  ])('documents the error responses of %s in the envelope', (route, statuses) => {
    const responses = operation(route).responses;
    for (const status of statuses) {
      expect({ status, schema: responses[status]?.content?.['application/json']?.schema }).toEqual({
        status,
        schema: { $ref: '#/components/schemas/ErrorEnvelope' },
      });
    }
  });

  it('gives every error response in the envelope an example of each code it lists, with the code and the status of that code', () => {
    const statusOf = (code: string) => errorStatus[code];
    const inEnvelope = (response: Operation['responses'][string]) => response.content?.['application/json']?.schema.$ref === '#/components/schemas/ErrorEnvelope';
    for (const { route, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses).filter(([s, r]) => Number(s) >= 400 && inEnvelope(r))) {
        const examples = Object.values(errorExamples(route, status));
        const codes = examples.map((e) => e.value!.errors.code);
        expect({ route, status, listed: [...new Set(codes)].sort() }).toEqual({ route, status, listed: response.description.split(', ').sort() });
        for (const code of codes) expect({ route, code, status: statusOf(code) }).toEqual({ route, code, status: Number(status) });
      }
    }
  });

  it.each([
    [`GET ${PRIV}/management/campaigns/{campaign_id}`, 'campaign', (apiKey: string) => `/priv/v1/apps/${apiKey}/management/campaigns/2147483647`],
    [`GET ${PRIV}/users/{user_id}`, 'user', (apiKey: string) => `/priv/v1/apps/${apiKey}/users/00000000-0000-4000-8000-000000000000`],
  ])('%s: the 401 and 404 examples are its own, and what it answers', async (route, object, url) => {
    const [unauthorized] = Object.values(errorExamples(route, '401'));
    const [notFound] = Object.values(errorExamples(route, '404'));
    expect(unauthorized.value!.errors.code).toBe('unauthorized');
    expect(notFound.value!.errors).toEqual({ code: 'not_found', message: `${object} not found` });
    expect(notFound.summary).toBe(`${object} not found`);
    // The same request answers them: a wrong secret, then an id nothing has.
    const tenant = await createTenant(app);
    const wrongSecret = await request(app.getHttpServer()).get(url(tenant.apiKey)).auth(tenant.apiKey, 'wrong-secret');
    expect({ status: wrongSecret.status, body: wrongSecret.body }).toEqual({ status: 401, body: unauthorized.value });
    const unknown = await request(app.getHttpServer()).get(url(tenant.apiKey)).auth(tenant.apiKey, tenant.apiSecret);
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: notFound.value });
  });

  it("shows a route's own 409 and its own 400 validation member", () => {
    const debit = `POST ${PRIV}/users/{user_id}/points/debits`;
    expect(errorExamples(debit, '409').duplicate_transaction.value!.errors).toEqual({
      code: 'duplicate_transaction',
      message: 'transaction_id redeem-7f3a has already been processed',
    });
    const validation = (route: string) => errorExamples(route, '400').validation.value!.errors;
    expect(validation(`POST ${PRIV}/management/campaigns`)).toEqual(
      expect.objectContaining({ code: 'validation', details: [{ field: 'campaign.status', message: expect.stringContaining('must be one of') }] }),
    );
    expect(validation(`GET ${PRIV}/management/campaigns`)).toEqual(expect.objectContaining({ code: 'validation', details: [expect.objectContaining({ field: 'limit' })] }));
    // The first example of each status is the one Swagger UI shows: validation, not invalid_json.
    expect(Object.keys(errorExamples(`POST ${PRIV}/users`, '400'))[0]).toBe('validation');
  });

  describe("a creative's issue_audience_csv", () => {
    const deliveryOf = (route: string) => resolve(requestSchema(route).properties!.creative).properties!.issue_audience_csv;

    it('is one of two forms told apart by delivery_method, each with only the members it allows', () => {
      for (const route of [`POST ${PRIV}/management/creative_groups/{creative_group_id}/creatives`, `PUT ${PRIV}/management/creatives/{creative_id}`]) {
        const delivery = deliveryOf(route);
        expect({ route, forms: delivery.oneOf?.length, by: delivery.discriminator?.propertyName, allOf: delivery.allOf }).toEqual({
          route,
          forms: 2,
          by: 'delivery_method',
          allOf: undefined,
        });
        const [triggered, scheduled] = delivery.oneOf!.map(resolve);
        expect(triggered.properties!.delivery_method.enum).toEqual(['triggered']);
        expect(Object.keys(triggered.properties!).sort()).toEqual(['behavior_id', 'delivery_method', 'template_id']);
        expect(triggered.required?.sort()).toEqual(['behavior_id', 'delivery_method']);
        expect(scheduled.properties!.delivery_method.enum).toEqual(['scheduled']);
        expect(Object.keys(scheduled.properties!).sort()).toEqual(['delivery_method', 'scheduled_delivery_date', 'template_id']);
        expect(scheduled.required?.sort()).toEqual(['delivery_method', 'scheduled_delivery_date']);
        // Closed: a triggered form with a scheduled_delivery_date fits neither.
        expect([triggered.additionalProperties, scheduled.additionalProperties]).toEqual([false, false]);
      }
    });

    it('in a body sampled from the schema, as Swagger UI and generators build one, is accepted by the service', async () => {
      const route = `POST ${PRIV}/management/creative_groups/{creative_group_id}/creatives`;
      const body = sample(requestSchema(route) as Parameters<typeof sample>[0], { skipReadOnly: true }, doc) as {
        creative: { application_id: number; issue_audience_csv: Record<string, unknown> };
      };
      expect(Object.keys(body.creative.issue_audience_csv).sort()).toEqual(['behavior_id', 'delivery_method', 'template_id']);

      const tenant = await createTenant(app);
      const campaign = await createCampaign(app, tenant);
      const behavior = await createBehavior(app, tenant, campaign.id, { name: 'Visit', event: 'visit' });
      const window = { starts_at: new Date(Date.now() - 86_400_000).toISOString(), ends_at: new Date(Date.now() + 30 * 86_400_000).toISOString() };
      const lineItem = await api(app, tenant).post(`/management/campaigns/${campaign.id}/line_items`).send({ line_item: { name: 'Main', status: 'live', ...window } }).expect(201);
      const group = await api(app, tenant)
        .post(`/management/line_items/${lineItem.body.line_items[0].id}/creative_groups`)
        .send({ creative_group: { name: 'Everyone', status: 'live', ...window } })
        .expect(201);
      const [application] = (await app.get(DataSource).query('SELECT id FROM applications WHERE organization_id = $1 ORDER BY id LIMIT 1', [tenant.organizationId])) as Array<{ id: number }>;
      // The sample's ids are placeholders: this organization's own application and behavior instead.
      body.creative.application_id = application.id;
      body.creative.issue_audience_csv.behavior_id = behavior.id;
      const res = await api(app, tenant).post(`/management/creative_groups/${group.body.creative_groups[0].id}/creatives`).send(body);
      expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: expect.objectContaining({ status: 'ok' }) });
    });
  });

  describe('retrieval', () => {
    const routes = [`GET ${PRIV}/users/{user_id}/events`, `GET ${PRIV}/external/users/{external_id}/events`];

    it.each(routes)("%s names division_ids[], the seed's form, as a repeated array parameter", (route) => {
      const parameter = operation(route).parameters?.find((p) => p.name === 'division_ids[]');
      expect(parameter).toEqual(
        expect.objectContaining({ in: 'query', style: 'form', explode: true, schema: { type: 'array', items: { type: 'integer' } } }),
      );
    });

    it('is answered as the document says for division_ids[]: its 400 example for an id that is not a division', async () => {
      const tenant = await createTenant(app, { multi_org_enabled: true });
      const customer = await createCustomer(app, tenant);
      const ok = await api(app, tenant).get(`/users/${customer.id}/events?division_ids%5B%5D=${tenant.rootDivisionId}&division_ids%5B%5D=${tenant.rootDivisionId}`);
      expect(ok.status).toBe(200);
      const refused = await api(app, tenant).get(`/users/${customer.id}/events?division_ids%5B%5D=99`);
      expect({ status: refused.status, body: refused.body }).toEqual({ status: 400, body: errorExamples(routes[0], '400').validation.value });
    });
  });

  it('documents a success response for every route', () => {
    for (const { route, op } of operations()) {
      expect({ route, success: Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s)) }).toEqual({ route, success: [expect.any(String)] });
    }
  });
});
