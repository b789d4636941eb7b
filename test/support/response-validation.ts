import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { ResponseValidator } from 'express-openapi-validator/dist/middlewares/openapi.response.validator.js';
import { appendFileSync } from 'node:fs';

/** A response that does not match the document the app serves: the route, the status and what is wrong. */
export interface Mismatch {
  request: string;
  status: number;
  problem: string;
}

/** Mismatches of the current test; the e2e setup file fails the test that received any (test/support/openapi-setup.ts). */
export const mismatches: Mismatch[] = [];

function record(mismatch: Mismatch): void {
  if (process.env.OPENAPI_MISMATCH_LOG) appendFileSync(process.env.OPENAPI_MISMATCH_LOG, JSON.stringify(mismatch) + '\n');
  else mismatches.push(mismatch);
}

/**
 * The document with every object schema that lists its properties and says nothing of others closed to others
 * (additionalProperties: false), so that a member the document does not describe is a mismatch too. The served
 * document stays open, so that clients generated from it accept members added later. A union (`oneOf`: Criterion's
 * forms, told apart by op, and the outcomes' one-member forms) is closed form by form: a member no form lists fits
 * none. Ajv ignores its `discriminator` here (the library passes that option for requests only): `oneOf` alone
 * decides, exactly, since the forms' op enums are disjoint and each outcome form requires a member the others lack.
 */
function closed(document: OpenAPIObject): OpenAPIObject {
  const close = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(close);
    if (typeof node !== 'object' || node === null) return node;
    const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === 'example' || key === 'examples' ? value : close(value)]));
    if (copy.properties && !('additionalProperties' in copy) && !copy.allOf) copy.additionalProperties = false;
    return copy;
  };
  return close(document) as OpenAPIObject;
}

/**
 * Three costs of the library's response validators, cut without changing what they check:
 * - it caches a route's validators under the method, the route and the *request's* content type, though what it builds
 *   depends on the route's documented responses only: a request with a content type not seen before (the fuzzer sends
 *   hundreds: charsets, parameters, types that are not JSON) built them all again, most of the fuzz spec's time. Here
 *   they are cached under the method and the route.
 * - it builds the validators of every documented status of the route at its first answer, though an answer is checked
 *   against its own status's schema alone (or its `4XX`, or `default`: `_validate`'s order): a spec sending each route
 *   a 401 compiled every route's 200 too (the credentials spec: 30 s of its first test). Here each is built the first
 *   time an answer of that status needs it; a status the route does not document finds none, as before.
 * - each schema it compiles carries the whole document's `paths` and `components` (for multi-file references), and Ajv
 *   walks all of it on every compile. The document's references all point into `components` (a reference into `paths`
 *   would fail to compile, loudly), so the schemas are built without `paths`: 64% less to walk per route.
 */
type Validators = ReturnType<ResponseValidator['_getOrBuildValidator']>;
ResponseValidator.prototype._getOrBuildValidator = function (this: unknown, req, responses) {
  const self = this as { spec: { paths?: unknown }; validatorsCache: Record<string, Validators>; buildValidators(r: typeof responses, key: string): Validators };
  const status = String(req.res?.statusCode ?? 'default');
  const documented = responses ?? {};
  const name = [status, `${status[0]}XX`, 'default'].find((candidate) => candidate in documented);
  if (name === undefined) return {} as Validators;
  const key = `${req.method}-${req.openapi!.expressRoute}-${name}`;
  if (!self.validatorsCache[key]) {
    const spec = self.spec;
    self.spec = { ...spec, paths: {} };
    try {
      self.validatorsCache[key] = self.buildValidators({ [name]: documented[name] } as typeof responses, key);
    } finally {
      self.spec = spec;
    }
  }
  return self.validatorsCache[key];
};

let cached: { json: string; handlers: ReturnType<typeof OpenApiValidator.middleware> } | undefined;

/**
 * The validator of `document`, built once per test file and shared by its apps (they serve the same document): the
 * library compiles a route's schemas on first use, and a file that creates many apps would compile them again.
 */
function validatorFor(document: OpenAPIObject): ReturnType<typeof OpenApiValidator.middleware> {
  const json = JSON.stringify(document);
  if (cached?.json === json) return cached.handlers;
  const handlers = OpenApiValidator.middleware({
    apiSpec: closed(document) as never,
    validateApiSpec: true,
    validateRequests: false,
    validateSecurity: false,
    ignoreUndocumented: true,
    validateFormats: true,
    validateResponses: {
      allErrors: true,
      onError: (error, _body, req) =>
        record({ request: `${req.method} ${req.originalUrl}`, status: Number(req.res?.statusCode), problem: error.message }),
    },
  });
  cached = { json, handlers };
  return handlers;
}

type DocumentedResponse = { content?: Record<string, unknown>; $ref?: string };
type Operation = { responses?: Record<string, DocumentedResponse> };

/** `response`, or the one of components.responses it refers to (a response the same on every route is kept there). */
function inPlace(document: OpenAPIObject, response: DocumentedResponse | undefined): DocumentedResponse | undefined {
  return response?.$ref ? (document.components?.responses?.[response.$ref.split('/').pop()!] as DocumentedResponse) : response;
}

/**
 * Every response the app sends is checked against `document`, the one it serves at /docs-json:
 * - the JSON body against the schema documented for its status, by express-openapi-validator (Ajv underneath);
 * - the status and the media type against the operation's documented responses, once the response is finished
 *   (this also covers bodies that are not JSON: CSV downloads, Prometheus text).
 * Routes outside the document (the Swagger UI itself, the queue dashboard) are not checked.
 */
export function validateResponses(app: NestExpressApplication, document: OpenAPIObject): void {
  const validator = validatorFor(document);
  // Requests are not validated here (the service's own validation is under test): an error the library raises while
  // matching a request (a path that is not valid UTF-8, a method the path does not document) only means that
  // request's answer is not checked; the app answers it as it would without the validator.
  for (const handler of validator) app.use((req: Request, res: Response, next: NextFunction) => handler(req, res, () => next()));
  app.use((req: Request & { openapi?: { schema?: Operation } }, res: Response, next: NextFunction) => {
    res.on('finish', () => {
      const operation = req.openapi?.schema;
      if (!operation) return;
      const response = inPlace(document, operation.responses?.[String(res.statusCode)]);
      const request = `${req.method} ${req.originalUrl}`;
      if (!response) return record({ request, status: res.statusCode, problem: 'status not documented' });
      const mediaType = String(res.getHeader('content-type') ?? '').split(';')[0].trim();
      const documented = Object.keys(response.content ?? {});
      if (mediaType && !documented.includes(mediaType)) {
        record({ request, status: res.statusCode, problem: `content type ${mediaType} not documented (documented: ${documented.join(', ') || 'none'})` });
      }
    });
    next();
  });
}
