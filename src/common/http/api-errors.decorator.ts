import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from '../errors/app-error.js';
import { ErrorEnvelope } from './error-envelope.dto.js';

/** Documents the error codes a route can answer, grouped by HTTP status, all in the one envelope. */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return applyDecorators(
    ...[...byStatus].map(([status, list]) => ApiResponse({ status, type: ErrorEnvelope, description: list.join(', ') })),
  );
}
