import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppError } from './app-error.js';
import { LOGGER, type Logger } from '../logging/logger.js';
import { busyCause, isConnectionError } from './connection-errors.js';

interface BodyParserError {
  type?: string;
  status?: number;
}

/** Maps anything thrown while serving a request to the contract's error envelope. */
@Catch()
export class ErrorFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const error = this.toAppError(exception, req);
    if (error.code === 'internal_error') {
      this.logger.error({ req_id: req.id, err: describe(exception) }, 'unhandled error');
    }
    if (res.headersSent) return;
    const body: Record<string, unknown> = { code: error.code, message: error.message };
    if (error.details?.length) body.details = error.details;
    if (error.code === 'internal_error') body.request_id = req.id;
    res.status(error.status).json({ status: 'error', errors: body, ...error.extra });
  }

  private toAppError(exception: unknown, req: Request): AppError {
    if (exception instanceof AppError) return exception;
    // Nest wraps body-parser's errors in an HttpException whose cause is the original.
    const parserError = ((exception as { cause?: unknown })?.cause ?? exception) as BodyParserError;
    if (parserError?.type === 'entity.parse.failed') return new AppError('invalid_json', 'request body is not valid JSON');
    if (parserError?.type === 'entity.too.large') return new AppError('payload_too_large', 'request body is too large');
    if (exception instanceof HttpException) return fromHttpException(exception, req);
    if (isUnstorableText(exception)) return new AppError('validation', 'a value holds a character that cannot be stored (NUL)');
    const busy = busyCause(exception);
    if (busy) return new AppError('service_unavailable', busy);
    if (isConnectionError(exception)) {
      return new AppError('service_unavailable', 'a backing service is unreachable; retry later');
    }
    return new AppError('internal_error', 'internal error');
  }
}

function fromHttpException(exception: HttpException, req: Request): AppError {
  const status = exception.getStatus();
  if (status === 404) return new AppError('not_found', `no route for ${req.method} ${req.path}`);
  if (status === 413) return new AppError('payload_too_large', 'request body is too large');
  if (status === 401 || status === 403) return new AppError('unauthorized', 'unauthorized');
  if (status === 429) return new AppError('rate_limited', 'too many requests');
  if (status >= 500) return new AppError('internal_error', 'internal error');
  return new AppError('validation', exception.message);
}

/**
 * PostgreSQL refusing text it cannot store (NUL in text: 22021; \u0000 in jsonb: 22P05): the input's fault, not a bug.
 * Bodies are checked before (see bodyShapeProblem); this covers the rest, such as an external_id in the path.
 */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

function isUnstorableText(exception: unknown): boolean {
  const code = (exception as { code?: unknown })?.code ?? (exception as { driverError?: { code?: unknown } })?.driverError?.code;
  return typeof code === 'string' && UNSTORABLE_TEXT_CODES.has(code);
}

function describe(exception: unknown): Record<string, unknown> {
  if (exception instanceof Error) return { type: exception.name, message: exception.message, stack: exception.stack };
  return { value: String(exception) };
}
