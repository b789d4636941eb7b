import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { CLOCK, type Clock } from '../../../common/clock.js';
import type { Queue } from 'bullmq';
import type { EntityManager } from 'typeorm';
import { LOGGER, type Logger } from '../../../common/logging/logger.js';
import { QueueName } from '../../../queues/queue-names.js';
import { ConfigChangesService } from '../../audit/index.js';
import { ACTIVE_SCHEDULED_CREATIVES } from './active-creatives.js';
import { enqueueAudienceJobs } from './enqueue-audience-jobs.js';

/** The objects whose changes can start, move or stop a scheduled delivery. */
const SCHEDULING_OBJECTS = new Set(['campaign', 'line_item', 'creative_group', 'creative']);

/**
 * Keeps the `scheduled` audience jobs of an organization in step with its configuration, inside every management
 * write's transaction (after the organization's rules version is bumped, which holds the organization's row lock, so
 * two writes of one organization reconcile one after the other):
 * - a `scheduled` row whose creative is no longer active, or whose date changed, becomes `cancelled`;
 * - an active scheduled creative whose date is still ahead and has no `scheduled` row for that date gets one, and a
 *   delayed job at that date.
 */
@Injectable()
export class AudienceScheduleService implements OnModuleInit {
  constructor(
    private readonly changes: ConfigChangesService,
    @InjectQueue(QueueName.AudienceJobs) private readonly queue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onModuleInit(): void {
    this.changes.onChange(async (em, tenant, change) => {
      if (SCHEDULING_OBJECTS.has(change.objectType)) await this.sync(em, tenant.organizationId);
    });
  }

  async sync(em: EntityManager, organizationId: number): Promise<void> {
    await em.query(
      `UPDATE audience_jobs j SET status = 'cancelled', updated_at = now()
        WHERE j.organization_id = $1 AND j.status = 'scheduled'
          AND NOT EXISTS (SELECT 1 FROM (${ACTIVE_SCHEDULED_CREATIVES}) a WHERE a.creative_id = j.creative_id AND a.scheduled_at = j.scheduled_at)`,
      [organizationId],
    );
    const inserted: Array<{ id: number; scheduled_at: Date }> = await em.query(
      `INSERT INTO audience_jobs (organization_id, creative_id, status, scheduled_at)
       SELECT $1, a.creative_id, 'scheduled', a.scheduled_at FROM (${ACTIVE_SCHEDULED_CREATIVES}) a
        WHERE a.scheduled_at > now()
          AND NOT EXISTS (SELECT 1 FROM audience_jobs j WHERE j.creative_id = a.creative_id AND j.status = 'scheduled')
       RETURNING id, scheduled_at`,
      [organizationId],
    );
    if (inserted.length === 0) return;
    // Queued before COMMIT: a job that wakes before the row is visible (or after a rollback) finds no row and does
    // nothing; the sweeper queues the committed row again once it is due. Redis down: the sweeper does it too.
    try {
      await enqueueAudienceJobs(
        this.queue,
        inserted.map((r) => ({ id: Number(r.id), scheduledAt: new Date(r.scheduled_at) })),
        this.clock.now(),
      );
    } catch (error) {
      this.logger.warn({ err: (error as Error).message, audience_jobs: inserted.map((r) => r.id) }, 'audience jobs not queued; the sweeper will');
    }
  }
}
