import type { OpenAPIObject } from '@nestjs/swagger';
import { completeDocument, quoted } from './openapi-document.js';

describe('quoted', () => {
  it.each([
    ['or send Authorization: Bearer <token>', 'or send Authorization: Bearer `<token>`'],
    ['name ends with [DELETED AT <timestamp>]', 'name ends with [DELETED AT `<timestamp>`]'],
    ['`Authorization: Bearer <token>` already in a code span', '`Authorization: Bearer <token>` already in a code span'],
    ['<event> then `<kept>` then <name>', '`<event>` then `<kept>` then `<name>`'],
    ['a < b and c > d', 'a < b and c > d'],
  ])('%j → %j', (text, expected) => {
    expect(quoted(text)).toBe(expected);
  });
});

/** `response`, or the one of components.responses it refers to. */
const inPlace = (document: OpenAPIObject, response: object): object =>
  '$ref' in response ? document.components!.responses![String(response.$ref).split('/').pop()!] : response;

describe('completeDocument', () => {
  const document = (): OpenAPIObject => ({
    openapi: '3.0.0',
    info: { title: 't', version: '1', description: 'send Bearer <token>' },
    paths: {
      '/priv/v1/apps/{api_key}/management/offers/{offer_id}': {
        get: {
          description: 'ends with [DELETED AT <timestamp>]',
          responses: {
            '200': { description: 'ok' },
            '404': { description: 'not_found', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
          },
        },
      },
    },
    components: { schemas: { Offer: { type: 'object', properties: { value: { type: 'string', description: 'a <placeholder>', example: '<kept as data>' } } } } },
  });

  it('gives each error response an example naming the route object, and keeps those of every route once', () => {
    const done = completeDocument(document());
    const responses = done.paths['/priv/v1/apps/{api_key}/management/offers/{offer_id}'].get!.responses;
    expect(responses['404']).toEqual(
      expect.objectContaining({
        content: {
          'application/json': expect.objectContaining({
            examples: { not_found: { summary: 'offer not found', value: { status: 'error', errors: { code: 'not_found', message: 'offer not found' } } } },
          }),
        },
      }),
    );
    const internalError = inPlace(done, responses['500']!) as { content: Record<string, { examples: object }> };
    expect(Object.keys(internalError.content['application/json'].examples)).toEqual(['internal_error']);
    expect(done.components?.examples?.internal_error).toEqual(
      expect.objectContaining({ value: expect.objectContaining({ errors: expect.objectContaining({ code: 'internal_error' }) }) }),
    );
  });

  it('keeps a response whose examples are the same on every route once, in components.responses', () => {
    const doc = document();
    doc.paths['/priv/v1/apps/{api_key}/management/offers'] = { get: { description: 'the offers', responses: { '200': { description: 'ok' } } } };
    const done = completeDocument(doc);
    for (const item of Object.values(done.paths)) expect(item.get!.responses['500']).toEqual({ $ref: '#/components/responses/internal_error' });
    expect(done.components?.responses?.internal_error).toEqual({
      description: 'internal_error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' }, examples: { internal_error: { $ref: '#/components/examples/internal_error' } } } },
    });
    expect(done.paths['/priv/v1/apps/{api_key}/management/offers/{offer_id}'].get!.responses['404']).not.toHaveProperty('$ref');
  });

  it('puts placeholders of descriptions in code spans, also of a member named value, and leaves examples as they are', () => {
    const done = completeDocument(document());
    expect(done.info.description).toBe('send Bearer `<token>`');
    expect(done.paths['/priv/v1/apps/{api_key}/management/offers/{offer_id}'].get!.description).toBe('ends with [DELETED AT `<timestamp>`]');
    const value = (done.components!.schemas!.Offer as { properties: Record<string, { description: string; example: string }> }).properties.value;
    expect(value).toEqual(expect.objectContaining({ description: 'a `<placeholder>`', example: '<kept as data>' }));
  });
});
