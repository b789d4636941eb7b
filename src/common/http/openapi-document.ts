import type { OpenAPIObject, OperationObject, ResponseObject } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '../errors/app-error.js';

const ENVELOPE = { $ref: '#/components/schemas/ErrorEnvelope' };
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * The answers an operation can give because of what it is, not what it does, added to the served document in one
 * place rather than on each of 79 routes:
 * - every operation: 500 internal_error and 503 service_unavailable (PostgreSQL or Redis unreachable);
 * - every operation that takes a JSON body: 400 invalid_json and 413 payload_too_large (BODY_LIMIT);
 * - health and metrics: no security (`security: []`), since the document's default is none but lint asks to say so.
 * Codes a route documents itself (ApiErrors) are kept; these are merged into the same statuses.
 */
export function completeDocument(document: OpenAPIObject): OpenAPIObject {
  document.servers = [{ url: '/', description: 'This service, where the document is served; a generated client takes its base URL' }];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const codes: ErrorCode[] = ['internal_error', 'service_unavailable'];
      if (operation.requestBody) codes.push('invalid_json', 'payload_too_large');
      for (const code of codes) addError(operation, code);
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
