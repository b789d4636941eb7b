import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Queue } from 'bullmq';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { EventsJob, QueueName } from '../../queues/queue-names.js';
import { EventEnrichment } from '../registry/index.js';
import { EventCounters } from '../metrics/index.js';
import { enqueueEvents, type QueuedEvent } from './enqueue.js';
import { parseV2Body, STORE_V2_EVENTS, V2Event } from './v2-events.js';

/**
 * V2 ingestion (contract §9): validate the whole batch, store every event in one multi-row insert (customers resolved
 * in the same statement; repeated transaction ids under the api key ignored), answer, then queue them for the workers.
 * No evaluation here. If Redis cannot take the jobs, the events are stored all the same and the sweeper queues them.
 */
@Injectable()
export class V2EventsUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    @InjectQueue(QueueName.Events) private readonly queue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly counters: EventCounters,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly enrichment: EventEnrichment,
  ) {}

  async execute(tenant: Tenant, body: unknown, requestId: string): Promise<{ status: 'ok' }> {
    const events = parseV2Body(body, this.clock.now());
    const enriching = this.enrich(tenant, events);
    if (enriching) await enriching;
    const divisions = await this.divisions(tenant, events);
    const stored: QueuedEvent[] = await this.db.query(
      STORE_V2_EVENTS,
      [
        tenant.organizationId,
        tenant.apiKeyId,
        requestId,
        // One JSON parameter for the rows: one JSON.stringify instead of escaping every element of eight arrays.
        JSON.stringify(
          events.map((e, i) => ({
            user_id: e.userId,
            external_id: e.externalId,
            transaction_id: e.transactionId,
            name: e.name,
            count: e.count,
            context: e.context,
            division_id: divisions[i],
            occurred_at: e.occurredAt,
          })),
        ),
      ],
    );
    this.counters.add({ accepted: stored.length, duplicates: events.length - stored.length });
    if (stored.length) {
      await enqueueEvents(this.queue, stored, EventsJob.Evaluate, 'v2', true, requestId).catch((error: Error) =>
        this.logger.warn({ req_id: requestId, err: error.message, events: stored.length }, 'events stored but not queued; the sweeper will queue them'),
      );
    }
    return { status: 'ok' };
  }

  /** The event enrichers' work on the batch (V2 events carry context alone): nothing to await without enrichers. */
  private enrich(tenant: Tenant, events: V2Event[]): Promise<void> | null {
    if (!this.enrichment.active) return null;
    const seen = events.map((e) => ({ name: e.name, attributes: {}, context: e.context }));
    const enriching = this.enrichment.enrich(seen, { organizationId: tenant.organizationId, source: 'v2' });
    return enriching && enriching.then(() => seen.forEach((e, i) => (events[i].context = e.context)));
  }

  /**
   * The division of each event: with multi-org on, context.division_id must be a division of the organization (else
   * missing_data naming each offending event), absent meaning the root; with multi-org off it is ignored.
   */
  private async divisions(tenant: Tenant, events: V2Event[]): Promise<Array<number | null>> {
    if (!tenant.multiOrgEnabled) return events.map(() => null);
    const asked = [...new Set(events.map((e) => e.division).filter((d): d is string => d !== null && /^\d{1,10}$/.test(d)).map(Number))];
    const found: Array<{ id: number }> = asked.length
      ? await this.db.query(`SELECT id FROM divisions WHERE organization_id = $1 AND id = ANY($2) AND deleted_at IS NULL`, [tenant.organizationId, asked])
      : [];
    const known = new Set(found.map((d) => String(d.id)));
    const details = events
      .map((e, i) => ({ e, i }))
      .filter(({ e }) => e.division !== null && !known.has(e.division))
      .map(({ i }) => ({ field: `events[${i}].context.division_id`, message: 'is not a division of this organization' }));
    if (details.length) throw new AppError('missing_data', details.map((d) => `${d.field} ${d.message}`).join('; '), details);
    return events.map((e) => (e.division === null ? tenant.rootDivisionId : Number(e.division)));
  }
}
