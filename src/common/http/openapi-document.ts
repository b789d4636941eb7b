import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '../errors/app-error.js';

const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const COMMON_ERRORS: ErrorCode[] = ['invalid_json', 'payload_too_large', 'internal_error', 'service_unavailable'];

/**
 * The answers an operation can give because of what it is, not what it does, added to the served document in one
 * place rather than on each of 79 routes:
 * - every operation: 500 internal_error, 503 service_unavailable (PostgreSQL or Redis unreachable), and 400
 *   invalid_json and 413 payload_too_large (BODY_LIMIT): a JSON body is read on any route, a GET's included;
 * - health and metrics: no security (`security: []`), since the document's default is none but lint asks to say so.
 * Codes a route documents itself (ApiErrors) are kept; these are merged into the same statuses.
 */
export function completeDocument(document: OpenAPIObject): OpenAPIObject {
  document.servers = [{ url: '/', description: 'This service, where the document is served; a generated client takes its base URL' }];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      for (const code of COMMON_ERRORS) addError(operation, code);
      if (!operation.security && !path.startsWith('/priv/') && !path.startsWith('/admin/')) operation.security = [];
    }
  }
  return document;
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
