import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { AppError } from '../../common/errors/app-error.js';
import { pageWindow, type PageQuery } from '../../common/http/pagination.dto.js';
import type { Tenant } from '../../common/http/request-context.js';
import { LOGGER, type Logger } from '../../common/logging/logger.js';
import { toDate } from '../../common/validation/validators.js';
import { QueueName } from '../../queues/queue-names.js';
import { CampaignsService } from '../campaigns/index.js';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { MAX_EXPLAINED_CUSTOMERS, type QueuedSimulationView, type SimulationInput, type SimulationListResponse, type SimulationView } from './dto/simulation.dto.js';
import { simulationRangeProblem } from './dto/simulation-range.js';
import { enqueueSimulation } from './enqueue-simulation.js';
import { SimulationsRepository, type SimulationRow } from './simulations.repository.js';

/**
 * Management of simulations (contract §15): create (queued for a worker), read, list and cancel. The campaign must be
 * the organization's and not deleted, whatever its status; a simulation of another organization is not_found.
 */
@Injectable()
export class SimulationsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly simulations: SimulationsRepository,
    private readonly campaigns: CampaignsService,
    @InjectQueue(QueueName.Simulations) private readonly queue: Queue,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async create(tenant: Tenant, campaignId: number, input: SimulationInput): Promise<QueuedSimulationView> {
    await this.campaigns.find(this.db.manager, tenant, { id: campaignId });
    const from = toDate(input.from);
    const to = toDate(input.to);
    const range = simulationRangeProblem(from, to);
    if (range) throw AppError.validation('simulation.to', range);
    const customerIds = input.customer_ids ? [...new Set(input.customer_ids.map((id) => id.toLowerCase()))] : null;
    if (input.explain && (customerIds === null || customerIds.length > MAX_EXPLAINED_CUSTOMERS)) {
      throw AppError.validation('simulation.explain', `needs simulation.customer_ids of at most ${MAX_EXPLAINED_CUSTOMERS} customers`);
    }
    const row = await this.simulations.create({ organizationId: tenant.organizationId, campaignId, from, to, customerIds, explain: input.explain ?? false });
    // Redis down: the row stays queued and the worker's sweeper queues it once Redis is back.
    await enqueueSimulation(this.queue, row.id, row.attempt).catch((error: Error) =>
      this.logger.warn({ simulation_id: row.id, err: error.message }, 'simulation not queued; the sweeper queues it'),
    );
    return { id: row.id, campaign_id: row.campaign_id, status: 'queued', from: row.range_from.toISOString(), to: row.range_to.toISOString() };
  }

  async get(tenant: Tenant, id: number): Promise<SimulationView> {
    return simulationView(await this.found(this.simulations.find(tenant.organizationId, id)));
  }

  async list(tenant: Tenant, campaignId: number, query: PageQuery): Promise<SimulationListResponse> {
    await this.campaigns.find(this.db.manager, tenant, { id: campaignId });
    const { rows, total } = await this.simulations.ofCampaign(tenant.organizationId, campaignId, pageWindow(query));
    return { status: 'ok', simulations: rows.map(simulationView), page: query.page, limit: query.limit, total };
  }

  /** Cancels a queued or running simulation; a finished one is answered as it is. */
  async cancel(tenant: Tenant, id: number): Promise<SimulationView> {
    return simulationView(await this.found(this.simulations.cancel(tenant.organizationId, id)));
  }

  private async found(row: Promise<SimulationRow | null>): Promise<SimulationRow> {
    const found = await row;
    if (!found) throw AppError.notFound('simulation');
    return found;
  }
}

function simulationView(row: SimulationRow): SimulationView {
  return {
    id: row.id,
    campaign_id: row.campaign_id,
    status: row.status,
    from: row.range_from.toISOString(),
    to: row.range_to.toISOString(),
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    customers: row.customers,
    events_replayed: Number(row.events_replayed),
    results: row.results,
    explanations: row.explanations,
    error: row.error,
  };
}
