import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { getQueueToken } from '@nestjs/bullmq';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Queue } from 'bullmq';
import type { NextFunction, Request, Response } from 'express';
import type { AppConfig } from '../../config/config.js';
import { QueueName } from '../../queues/queue-names.js';
import { safeEqual } from '../../modules/tenancy/secrets.js';
import { basicCredentials } from '../auth/api-key.guard.js';

export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/**
 * ADMIN_TOKEN as `Authorization: Bearer <token>`, or as the password of HTTP Basic (what a browser can send: it asks
 * for it). Compared in constant time; without ADMIN_TOKEN the dashboard is closed.
 */
function adminOnly(config: AppConfig) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.header('authorization') ?? '';
    const token = /^Bearer (.+)$/i.exec(header)?.[1] ?? basicCredentials(header)?.secret ?? '';
    if (config.adminToken && safeEqual(token, config.adminToken)) return next();
    res
      .status(401)
      .setHeader('www-authenticate', 'Basic realm="queues"')
      .json({ status: 'error', errors: { code: 'unauthorized', message: config.adminToken ? 'unauthorized' : 'the admin API is disabled: set ADMIN_TOKEN to enable it' } });
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
  app.use(QUEUE_DASHBOARD_PATH, adminOnly(config), board.getRouter());
}
