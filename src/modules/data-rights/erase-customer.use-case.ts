import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { AppError } from '../../common/errors/app-error.js';
import type { Tenant } from '../../common/http/request-context.js';
import { EvaluationPipeline } from '../evaluation/index.js';
import type { CustomerKey } from '../evaluation/index.js';
import type { ErasureResponse } from './dto/data-rights.dto.js';
import { ErasureRepository } from './erasure.repository.js';

/**
 * DELETE .../users/:user_id (contract §21, decision 0024): in the customer's turn, their row locked (no evaluation of
 * them runs beside it), commits what must be gone at once and the job the erasure worker finishes. From the commit on
 * every lookup of the customer answers 404 and their external id is free.
 */
@Injectable()
export class EraseCustomerUseCase {
  constructor(
    private readonly pipeline: EvaluationPipeline,
    private readonly erasures: ErasureRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  erase(tenant: Tenant, key: CustomerKey, requestId?: string): Promise<ErasureResponse> {
    return this.pipeline.withCustomerLocked(
      tenant.organizationId,
      key,
      async (customer, { uow, commitWith }) => {
        const erasedAt = new Date(this.clock.now()).toISOString();
        const start = { customerId: customer.snapshot.id, organizationId: tenant.organizationId, apiKeyId: tenant.apiKeyId, erasedAt };
        const deliveryIds = await commitWith(this.erasures.start(uow, start));
        if (deliveryIds === null) throw AppError.notFound('user');
        return { answer: { status: 'ok', erasure: { user_id: customer.snapshot.id, erased_at: erasedAt } }, deliveryIds };
      },
      requestId,
    );
  }
}
