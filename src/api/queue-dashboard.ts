import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { getQueueToken } from '@nestjs/bullmq';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Queue } from 'bullmq';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../config/config.js';
import { QueueName } from '../queues/queue-names.js';
import { checkAdminToken } from '../modules/tenancy/index.js';
import { basicCredentials } from '../common/auth/api-key.guard.js';
import { RateLimiter } from '../common/auth/rate-limiter.js';
import { AppError } from '../common/errors/app-error.js';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * ADMIN_TOKEN as `Authorization: Bearer <token>`, or as the password of HTTP Basic (what a browser can send: it asks
 * for it), checked as for the admin API (admin-token.ts); without ADMIN_TOKEN the dashboard is closed.
 */
function adminOnly(config: AppConfig, limiter: RateLimiter) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.header('authorization') ?? '';
    const token = /^Bearer (.+)$/i.exec(header)?.[1] ?? basicCredentials(header)?.secret ?? '';
    try {
      checkAdminToken(token, req, res, config, limiter);
    } catch (error) {
      if (!(error instanceof AppError)) return next(error);
      const refused = error;
      if (refused.code === 'unauthorized') res.setHeader('www-authenticate', 'Basic realm="queues"');
      res.status(refused.status).json({ status: 'error', errors: { code: refused.code, message: refused.message } });
      return;
    }
    next();
  };
}

/** bull-board at /admin/queues: the queues' jobs by state, with retry and clean, behind ADMIN_TOKEN. */
export function mountQueueDashboard(app: NestExpressApplication, config: AppConfig): void {
  const board = new ExpressAdapter();
  board.setBasePath(QUEUE_DASHBOARD_PATH);
  createBullBoard({
    queues: Object.values(QueueName).map((name) => new BullMQAdapter(app.get<Queue>(getQueueToken(name), { strict: false }))),
    serverAdapter: board,
  });
  app.use(QUEUE_DASHBOARD_PATH, adminOnly(config, app.get(RateLimiter)), board.getRouter());
}
