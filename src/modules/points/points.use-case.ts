import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { AppError } from '../../common/errors/app-error.js';
import { pageWindow, type PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { CustomerTransactions, DuplicateTransaction, EvaluationPipeline, EvaluationRepository, type CustomerKey } from '../evaluation/index.js';
import type { DebitInput, DebitResponse, PointsLedgerResponse } from './dto/points.dto.js';
import { PointsRepository } from './points.repository.js';

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString());

/** A unique violation of the debits' idempotency key (a concurrent debit with the same transaction_id won). */
const isUsedTransaction = (error: unknown) =>
  (error as { code?: string; constraint?: string }).code === '23505' && (error as { constraint?: string }).constraint === 'points_ledger_transaction';

/** Contract §13: a customer's ledger, and spending points. */
@Injectable()
export class PointsUseCase {
  constructor(
    private readonly pipeline: EvaluationPipeline,
    private readonly transactions: CustomerTransactions,
    private readonly customers: EvaluationRepository,
    private readonly points: PointsRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async ledger(tenant: Tenant, key: CustomerKey, query: PageQuery): Promise<PointsLedgerResponse> {
    return this.transactions.read(async ({ uow }) => {
      const customer = await this.customers.customer(uow, tenant.organizationId, key, false);
      if (!customer) throw AppError.notFound('user');
      const { take, skip } = pageWindow(query);
      const { entries, total, expiring } = await this.points.ledger(uow, customer.snapshot.id, take, skip);
      return {
        status: 'ok',
        available_points: customer.snapshot.availablePoints,
        lifetime_points: customer.snapshot.lifetimePoints,
        expiring: expiring.map((e) => ({ points: e.points, expires_at: iso(e.expires_at)! })),
        entries: entries.map((e) => ({
          id: String(e.id),
          amount: e.amount,
          reason: e.reason,
          event_id: e.event_id === null ? null : String(e.event_id),
          campaign_id: e.campaign_id,
          behavior_name: e.behavior_name,
          expires_at: iso(e.expires_at),
          created_at: iso(e.created_at)!,
        })),
        page: query.page,
        limit: query.limit,
        total,
      };
    });
  }

  /**
   * Spends points: with the customer locked as an evaluation locks it, so debits and evaluations of one customer
   * serialize. A used transaction_id is 409 before the balance is looked at (a retried debit is a duplicate, whatever
   * the balance is now); more than available is 422 and nothing changes.
   */
  debit(tenant: Tenant, key: CustomerKey, input: DebitInput, requestId?: string): Promise<DebitResponse> {
    const transactionId = input.transaction_id ?? null;
    return this.pipeline.withCustomerLocked(
      tenant.organizationId,
      key,
      async (customer, tx) => {
        if (transactionId !== null && (await this.points.debitExists(tx.uow, tenant.apiKeyId, transactionId))) throw new DuplicateTransaction(transactionId);
        const available = customer.snapshot.availablePoints;
        if (input.points > available) {
          throw new AppError('insufficient_points', `the customer has ${available} points available, fewer than the ${input.points} to debit`, [
            { field: 'debit.points', message: `must be at most ${available}, the points available` },
          ]);
        }
        const row = await tx
          .commitWith(
            this.points.debit(tx.uow, {
              organizationId: tenant.organizationId,
              customerId: customer.snapshot.id,
              externalId: customer.externalId,
              points: input.points,
              description: input.reason ?? null,
              apiKeyId: tenant.apiKeyId,
              transactionId,
              webhookId: randomUUID(),
              now: new Date(this.clock.now()).toISOString(),
            }),
          )
          .catch((error: unknown) => {
            throw isUsedTransaction(error) ? new DuplicateTransaction(transactionId!) : error;
          });
        return {
          answer: {
            status: 'ok' as const,
            debit: { id: String(row.id), points: input.points, reason: input.reason ?? null, created_at: iso(row.created_at)! },
            user: { available_points: Number(row.available_points), lifetime_points: Number(row.lifetime_points), tier: row.tier },
          },
          deliveryIds: (row.delivery_ids ?? []).map(String),
        };
      },
      requestId,
    );
  }
}
