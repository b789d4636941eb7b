import type { ExamplesObject, OpenAPIObject, OperationObject, ReferenceObject, ResponseObject } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '../errors/app-error.js';
import { errorExamples, type DocumentedRoute } from './error-examples.js';

const ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';
const ENVELOPE = { $ref: ENVELOPE_REF };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const COMMON_ERRORS: ErrorCode[] = ['invalid_json', 'payload_too_large', 'internal_error', 'service_unavailable'];

/**
 * The answers an operation can give because of what it is, not what it does, added to the served document in one
 * place rather than on each of 79 routes:
 * - every operation: 500 internal_error, 503 service_unavailable (PostgreSQL or Redis unreachable), and 400
 *   invalid_json and 413 payload_too_large (BODY_LIMIT): a JSON body is read on any route, a GET's included;
 * - health and metrics: no security (`security: []`), since the document's default is none but lint asks to say so;
 * - every error response: an example of each of its codes as this route answers it (error-examples.ts), since the
 *   envelope's own example (one validation error) would otherwise stand for every status of every route. Examples
 *   that are the same on every route are kept once, in components.examples, and so is a response whose examples all
 *   are (a 500, a 401 of the /priv routes): in components.responses, under its first example's key, each operation
 *   referring to it. Swagger UI shows them in place.
 * - every description and summary: a placeholder such as <timestamp> written outside a code span is put in one, since
 *   Swagger UI renders them as Markdown and would take it for an HTML tag and drop it.
 * Codes a route documents itself (ApiErrors) are kept; these are merged into the same statuses.
 */
export function completeDocument(document: OpenAPIObject): OpenAPIObject {
  document.servers = [{ url: '/', description: 'This service, where the document is served; a generated client takes its base URL' }];
  const shared: Shared = { examples: {}, responses: {} };
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      for (const code of COMMON_ERRORS) addError(operation, code);
      if (!operation.security && !path.startsWith('/priv/') && !path.startsWith('/admin/')) operation.security = [];
      addErrorExamples({ method, path, operation, document }, shared);
    }
  }
  document.components = {
    ...document.components,
    examples: { ...document.components?.examples, ...sortedByKey(shared.examples) },
    responses: { ...document.components?.responses, ...sortedByKey(shared.responses) },
  };
  quotePlaceholders(document);
  return document;
}

/** Members whose content is data (examples, defaults, values), not text of the document: left as they are. */
const DATA_MEMBERS = new Set(['example', 'examples', 'default', 'enum', 'value']);
const PLACEHOLDER = /<[A-Za-z_][^<>]*>/g;

/**
 * Puts the placeholders of every description and summary outside code spans into code spans (see completeDocument).
 * `names`: the node is a map of names to schemas (`properties`), where a member called description or value is a schema.
 */
function quotePlaceholders(node: unknown, names = false): void {
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (!names && (key === 'description' || key === 'summary') && typeof value === 'string') record[key] = quoted(value);
    else if (names || !DATA_MEMBERS.has(key)) quotePlaceholders(value, !names && key === 'properties');
  }
}

/** `text` with each <placeholder> outside a code span in one of its own. */
export function quoted(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part) => (part.startsWith('`') ? part : part.replace(PLACEHOLDER, (placeholder) => `\`${placeholder}\``)))
    .join('');
}

function addError(operation: OperationObject, code: ErrorCode): void {
  const status = String(ERROR_STATUS[code]);
  const existing = operation.responses[status] as ResponseObject | undefined;
  if (!existing) {
    operation.responses[status] = { description: code, content: { 'application/json': { schema: ENVELOPE } } };
    return;
  }
  const codes = existing.description.split(', ');
  if (!codes.includes(code)) existing.description = [...codes, code].join(', ');
}

/** What the document keeps once, in its components: the examples and the responses the same on every route. */
interface Shared {
  examples: ExamplesObject;
  responses: Record<string, ResponseObject>;
}

/**
 * Puts the examples of each envelope response's codes (its description lists them) at its media type; a response
 * whose examples are all shared becomes a reference to its one copy in `shared.responses`.
 */
function addErrorExamples(route: DocumentedRoute, shared: Shared): void {
  const responses = route.operation.responses as Record<string, ResponseObject | ReferenceObject>;
  for (const [status, response] of Object.entries(responses)) {
    if ('$ref' in response) continue;
    const media = response.content?.['application/json'];
    if ((media?.schema as { $ref?: string } | undefined)?.$ref !== ENVELOPE_REF) continue;
    const codes = response.description.split(', ').filter((code): code is ErrorCode => code in ERROR_STATUS);
    const built = errorExamples(route, codes);
    const examples: ExamplesObject = {};
    for (const example of built) {
      const object = { summary: example.summary, value: { status: 'error', errors: example.errors } };
      if (example.shared) {
        shared.examples[example.key] = object;
        examples[example.key] = { $ref: `#/components/examples/${example.key}` };
      } else {
        examples[example.key] = object;
      }
    }
    if (!built.length) continue;
    media!.examples = examples;
    if (built.every((example) => example.shared)) responses[status] = sharedResponse(built[0].key, response, shared);
  }
}

/**
 * A reference to `response` kept in `shared.responses` under `name`; `response` itself when another response holds
 * that name already (a route documenting headers of its own, say), since a route's own answer stays in place.
 */
function sharedResponse(name: string, response: ResponseObject, shared: Shared): ResponseObject | ReferenceObject {
  const kept = shared.responses[name];
  if (kept && JSON.stringify(kept) !== JSON.stringify(response)) return response;
  shared.responses[name] = response;
  return { $ref: `#/components/responses/${name}` };
}

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
