import { setImmediate as turn } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { leaseHeartbeat } from '../../common/scheduling/lease.js';
import { APP_CONFIG } from '../../config/config.module.js';
import type { AppConfig } from '../../config/config.js';
import { compileRules, type BudgetLeft, type CompiledRules, type EventExplanation } from '../../engine/index.js';
import { RulesRepository, toRuleSet } from '../campaigns/index.js';
import { ExtensionRegistry } from '../registry/index.js';
import { HistoryReplay, type ReplayedCustomer } from '../evaluation/index.js';
import { EventLogRepository } from '../events/index.js';
import { SimulationTally } from './simulation-results.js';
import { SimulationsRepository, type SimulationRow } from './simulations.repository.js';

/** Rows read per page of the replay's cursor: customers (with all their events) in customer order, events in time order. */
export const REPLAY_PAGE = { customer: 500, time: 5_000 };
/** Explanations kept per customer at most (`explain`): the first events' (a row holds them all, in one JSON value). */
export const MAX_EXPLAINED_EVENTS = 1_000;
/** How often a run writes its counts (and renews its lease): well inside LEASE_SECONDS. */
const PROGRESS_EVERY_MS = 1_000;
/**
 * The longest the replay computes without giving the process back: then it waits one turn of the event loop, so that
 * the process's other jobs (events first), its lock renewals and its timers run in between.
 */
const SLICE_MS = 20;
/** The stored reason of a run that failed for a reason of its own (the error is in the worker's log). */
export const SIMULATION_FAILED = 'the simulation failed (the worker logged why); it was retried and may be started again';

export type SimulationRunResult =
  | { outcome: 'skipped' | 'busy' }
  | { outcome: 'cancelled' | 'completed'; customers: number; events: number };

/** A simulation that cannot run, or not go on (its campaign was deleted, its time is up): failed at once, not retried. */
export class SimulationImpossible extends Error {}

interface Customer extends ReplayedCustomer {
  /** The behaviors the customer completed in the replay (SimulationTally). */
  achieved: Set<number>;
}

/**
 * Runs one simulation (contract §15):
 * 1. claim the row (SimulationsRepository.claim: one runner, at most SIMULATIONS_PER_ORGANIZATION of an organization);
 * 2. compile the campaign as it is now with the rules compiler of live evaluation, as if live over the range (its
 *    dates replaced by the range, its status ignored), alone;
 * 3. replay the range's stored events through HistoryReplay, reading them with a cursor in one snapshot, a page at a
 *    time, and the customers' profiles as they are now as their events come. Without a budget, one customer's events
 *    come after another's and only the current customer's state is held; with one, every event comes in time order
 *    (a budget is spent in the order completions happened), and each customer's state is held to the end;
 * 4. every second, write the counts and renew the lease (a timer); stop when the row is no longer this run's;
 * 5. complete the row with the results (and explanations). Nothing else is written.
 */
@Injectable()
export class RunSimulationUseCase {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly simulations: SimulationsRepository,
    private readonly eventLog: EventLogRepository,
    private readonly rules: RulesRepository,
    private readonly extensions: ExtensionRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** `final`: the job's last attempt, after which a failure leaves the simulation failed. */
  async execute(id: number, final: boolean): Promise<SimulationRunResult> {
    const claimed = await this.simulations.claim(id, this.config.simulationsPerOrganization);
    if (claimed === null || claimed === 'busy') return { outcome: claimed ?? 'skipped' };
    try {
      return await this.run(claimed);
    } catch (error) {
      // Only the service's own reasons are stored (and answered); another error's text, a database's say, is logged.
      const impossible = error instanceof SimulationImpossible;
      await this.simulations.fail(id, claimed.attempt, impossible ? error.message : SIMULATION_FAILED, final || impossible);
      throw error;
    }
  }

  private async run(simulation: SimulationRow): Promise<SimulationRunResult> {
    const { id, attempt, organization_id: organizationId } = simulation;
    const organization = await this.simulations.organization(organizationId);
    const { rules, budgets } = await this.campaignRules(simulation);
    const replay = new HistoryReplay(rules, organization.multiOrgEnabled, budgets, simulation.explain);
    const tally = new SimulationTally(rules, organization.timeZone);
    const explanations: Record<string, EventExplanation[]> | null = simulation.explain ? {} : null;
    const order = Object.keys(budgets).length > 0 ? 'time' : 'customer';
    const stream = await this.eventLog.replay(
      { organizationId, from: simulation.range_from, to: simulation.range_to, customerIds: simulation.customer_ids, order },
      REPLAY_PAGE[order],
    );
    const progress = { customers: 0, eventsReplayed: 0 };
    // The run's time budget counts from its claim (the database's clock), checked with the service's (injected) clock.
    const deadline = (simulation.started_at?.getTime() ?? this.clock.now()) + this.config.simulationMaxSeconds * 1000;
    const onTime = () => {
      if (this.clock.now() <= deadline) return;
      throw new SimulationImpossible(`stopped after ${this.config.simulationMaxSeconds} s, its time budget (SIMULATION_MAX_SECONDS): narrow its range or its customers`);
    };
    let slice = performance.now();
    // Each renewal of the lease writes the counts; one that finds the row no longer this run's stops the replay.
    const lease = leaseHeartbeat(PROGRESS_EVERY_MS, () => this.simulations.progress(id, attempt, progress));
    try {
      const held = new Map<string, Customer>();
      for (let page = await stream.next(); page !== null && !lease.lost(); page = await stream.next()) {
        onTime();
        if (order === 'customer') {
          // A page holds its customers' every event: the last page's customers are replayed to the end.
          for (const customer of held.values()) tally.reached(customer.snapshot.tierId);
          held.clear();
        }
        for (const snapshot of page.customers) held.set(snapshot.id, { ...HistoryReplay.start(snapshot), achieved: new Set() });
        progress.customers += page.customers.length;
        for (const event of page.events) {
          const customer = held.get(event.customerId)!;
          const result = replay.next(customer, event);
          tally.add(result, customer.achieved);
          if (explanations) {
            const explained = (explanations[event.customerId] ??= []);
            if (explained.length < MAX_EXPLAINED_EVENTS) explained.push(...result.explanation);
          }
          progress.eventsReplayed += 1;
          if (progress.eventsReplayed % 64 === 0 && performance.now() - slice > SLICE_MS) {
            onTime();
            await turn();
            slice = performance.now();
          }
        }
      }
      for (const customer of held.values()) tally.reached(customer.snapshot.tierId);
    } finally {
      lease.stop();
      await stream.close();
    }
    if (lease.lost()) return { outcome: 'cancelled', customers: progress.customers, events: progress.eventsReplayed };
    const done = await this.simulations.complete(id, attempt, progress, tally.results(), explanations);
    return { outcome: done ? 'completed' : 'cancelled', customers: progress.customers, events: progress.eventsReplayed };
  }

  /** The campaign alone, compiled as live evaluation compiles it, live over the range; its budget whole. */
  private async campaignRules(simulation: SimulationRow): Promise<{ rules: CompiledRules; budgets: Record<number, BudgetLeft> }> {
    const stored = await this.rules.load(this.db, simulation.organization_id, simulation.campaign_id);
    const [campaign] = stored.campaigns;
    if (!campaign) throw new SimulationImpossible('the campaign was deleted');
    // An experiment is replayed as running, whether or not it has ended: its groups are what a simulation compares (§20).
    stored.campaigns = [{ ...campaign, status: 'live', startsAt: simulation.range_from, endsAt: simulation.range_to, experimentEndedAt: null, experimentWinner: null }];
    const rules = compileRules(toRuleSet(stored), this.extensions.engine());
    const budgeted = campaign.budgetMaxCompletions !== null || campaign.budgetMaxPoints !== null;
    const budgets = budgeted ? { [campaign.id]: { completions: campaign.budgetMaxCompletions, points: campaign.budgetMaxPoints === null ? null : Number(campaign.budgetMaxPoints) } } : {};
    return { rules, budgets };
  }
}
