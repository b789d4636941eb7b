import { once } from 'node:events';
import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { Tenant } from '../../common/http/request-context.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { CustomersService, type CustomerRef } from '../customers-state/index.js';
import { RetrievalUseCase } from '../events/index.js';
import { CustomerExportRepository, type ExportListName } from './customer-export.repository.js';

/**
 * GET .../users/:user_id/export (contract §21): everything stored about the customer, as one JSON document written
 * as it is read: the profile, then each list streamed from PostgreSQL (the event log by its per-month index, newest
 * first), so that the process's memory does not grow with the customer's history. Each part is as of when it is read.
 */
@Injectable()
export class CustomerExportUseCase {
  constructor(
    private readonly customers: CustomersService,
    private readonly retrieval: RetrievalUseCase,
    private readonly lists: CustomerExportRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Throws the route's error (404) before anything is written; a failure once writing has begun cuts the answer short. */
  async write(tenant: Tenant, ref: CustomerRef, res: Response): Promise<void> {
    const user = await this.customers.get(tenant, ref);
    const { behaviors } = await this.retrieval.execute(tenant, { userId: user.id }, undefined);
    res.status(200).type('application/json');
    const send = async (chunk: string | Buffer) => {
      if (res.write(chunk)) return;
      // A client gone away never drains: the export stops there.
      const waiting = new AbortController();
      try {
        await Promise.race([
          once(res, 'drain', { signal: waiting.signal }),
          once(res, 'close', { signal: waiting.signal }).then(() => Promise.reject(new Error('the client went away'))),
        ]);
      } finally {
        waiting.abort();
      }
    };
    try {
      await this.lists.session(async (copy) => {
        const list = async (name: ExportListName) => {
          await send(`,"${name}":[`);
          await copy(name, user.id, send);
          await send(']');
        };
        await send(`{"status":"ok","export":{"user":${JSON.stringify(user)}`);
        await list('events');
        await list('points');
        await send(`,"behaviors":${JSON.stringify(behaviors)}`);
        for (const name of ['notifications', 'offers', 'tier_history'] as const) await list(name);
        await send(`,"experiments":${JSON.stringify(user.experiments)}`);
        await list('webhook_deliveries');
      });
      res.end('}}');
    } catch (error) {
      this.logger.error({ err: (error as Error).message, user_id: user.id }, 'customer export cut short');
      res.destroy(error as Error);
    }
  }
}
