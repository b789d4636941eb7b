import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { createTestApp } from './support/app.js';

interface SchemaObject {
  $ref?: string;
  type?: string;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  example?: unknown;
}

interface Operation {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, { schema: SchemaObject }> };
  responses: Record<string, { content?: Record<string, { schema: SchemaObject }> }>;
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, SchemaObject>; securitySchemes: Record<string, Record<string, string>> };
}

const PRIV = '/priv/v1/apps/{api_key}';

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
    if (!schema.$ref) return schema;
    const name = schema.$ref.replace('#/components/schemas/', '');
    const found = doc.components.schemas[name];
    if (!found) throw new Error(`${schema.$ref} does not resolve`);
    return found;
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
    doc = res.body;
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

  it('documents a success response for every route', () => {
    for (const { route, op } of operations()) {
      expect({ route, success: Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s)) }).toEqual({ route, success: [expect.any(String)] });
    }
  });
});
