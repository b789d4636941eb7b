import express from 'express';
import request from 'supertest';
import { mismatches, validateResponses } from './support/response-validation.js';

/**
 * The check every e2e response goes through (test/support/response-validation.ts) can fail: a body that breaks its
 * documented schema (through a $ref into components) is reported, whatever content type the request had, and once
 * per response; a body that matches is not.
 */
describe('response validation of the e2e specs', () => {
  const document = {
    openapi: '3.0.0',
    info: { title: 'probe', version: '1' },
    paths: {
      '/things/{id}': {
        get: {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } } },
        },
      },
    },
    components: { schemas: { Thing: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] } } },
  };
  const server = express();
  validateResponses({ use: (handler: express.RequestHandler) => server.use(handler) } as never, document as never);
  server.get('/things/:id', (req, res) => void res.json(req.params.id === 'good' ? { count: 1 } : { count: 'many' }));

  it('reports a body that breaks the schema, for each request whatever its content type, and nothing for one that matches', async () => {
    await request(server).get('/things/good').expect(200);
    await request(server).get('/things/good').set('content-type', 'text/plain; charset=x-unknown').expect(200);
    expect(mismatches.splice(0)).toEqual([]);
    await request(server).get('/things/bad').set('content-type', 'application/json; charset=utf-8').expect(200);
    await request(server).get('/things/bad').set('content-type', 'text/plain; charset=x-other').expect(200);
    await request(server).get('/things/bad').expect(200);
    const problem = '/response/count must be integer';
    expect(mismatches.splice(0)).toEqual([1, 2, 3].map(() => ({ request: 'GET /things/bad', status: 200, problem })));
  });
});
