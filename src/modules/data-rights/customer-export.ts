import { once } from 'node:events';
import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
import type { Tenant } from '../../common/http/request-context.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { CustomersService, type CustomerRef } from '../customers-state/customers.service.js';
import { RetrievalUseCase } from '../events/retrieval.use-case.js';
import { CustomerExportRepository, type ExportListName } from './customer-export.repository.js';

/**
 * GET .../users/:user_id/export (contract §21): everything stored about the customer, as one JSON document written
 * as it is read: the profile, then each list batch by batch (the event log by its per-month index, newest first), so
 * that the process holds one batch at a time whatever the customer's history. Each part is as of when it is read.
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
    const send = async (text: string) => {
      if (!res.write(text)) await once(res, 'drain');
    };
    try {
      await send(`{"status":"ok","export":{"user":${JSON.stringify(user)}`);
      await this.list('events', user.id, send);
      await this.list('points', user.id, send);
      await send(`,"behaviors":${JSON.stringify(behaviors)}`);
      for (const name of ['notifications', 'offers', 'tier_history'] as const) await this.list(name, user.id, send);
      await send(`,"experiments":${JSON.stringify(user.experiments)}`);
      await this.list('webhook_deliveries', user.id, send);
      res.end('}}');
    } catch (error) {
      this.logger.error({ err: (error as Error).message, user_id: user.id }, 'customer export cut short');
      res.destroy(error as Error);
    }
  }

  private async list(name: ExportListName, customerId: string, send: (text: string) => Promise<void>): Promise<void> {
    await send(`,"${name}":[`);
    let first = true;
    for await (const items of this.lists.batches(name, customerId)) {
      await send(`${first ? '' : ','}${items}`);
      first = false;
    }
    await send(']');
  }
}
