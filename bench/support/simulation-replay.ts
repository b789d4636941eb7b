/**
 * The simulation benchmark's in-process parts, on the service's own compiled code (dist/src): the campaign compiled as
 * RunSimulationUseCase compiles it, the range's events read with EventLogRepository.replay (the same cursor, pages of
 * REPLAY_PAGE) and the customers with EvaluationRepository.customers, and the engine's loop of RunSimulationUseCase.run
 * (HistoryReplay + SimulationTally, customer by customer) over events held in memory: the ceiling.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import type { Queryable } from '../../src/common/database/unit-of-work.js';
import { compileRules, CORE_EXTENSIONS, type CompiledRules, type CustomerSnapshot } from '../../src/engine/index.js';
import { toRuleSet } from '../../src/modules/campaigns/rules/rule-set.mapper.js';
import { RulesRepository } from '../../src/modules/campaigns/rules/rules.repository.js';
import { HistoryReplay, type ReplayedCustomer } from '../../src/modules/evaluation/history-replay.js';
import { EventLogRepository, type ReplayEvent, type ReplayScope } from '../../src/modules/events/event-log/event-log.repository.js';
import { REPLAY_PAGE } from '../../src/modules/simulations/run-simulation.use-case.js';
import { SimulationTally, type SimulationResults } from '../../src/modules/simulations/simulation-results.js';
import { SimulationsRepository } from '../../src/modules/simulations/simulations.repository.js';

/**
 * What the repositories use of a TypeORM DataSource, over a pg pool: `query` answers rows (as TypeORM's does for a
 * SELECT or a FETCH), and `createQueryRunner` a connection of its own.
 */
export function pgDataSource(pool: pg.Pool): DataSource {
  const query = async (text: string, values?: unknown[]) => (await pool.query(text, values)).rows;
  const createQueryRunner = () => {
    let client: pg.PoolClient | undefined;
    return {
      connect: async () => void (client = await pool.connect()),
      query: async (text: string, values?: unknown[]) => (await client!.query(text, values)).rows,
      release: async () => client?.release(),
    };
  };
  return { query, createQueryRunner } as unknown as DataSource;
}

export { REPLAY_PAGE };

const queryable = (pool: pg.Pool): Queryable => ({ query: async (text, values) => (await pool.query(text, values)).rows });

export interface ReplaySetup {
  rules: CompiledRules;
  timeZone: string;
  multiOrgEnabled: boolean;
  scope: ReplayScope;
}

/** The campaign alone, compiled as RunSimulationUseCase.campaignRules compiles it: live over the range. No budget here. */
export async function replaySetup(pool: pg.Pool, organizationId: number, campaignId: number, from: Date, to: Date): Promise<ReplaySetup> {
  const stored = await new RulesRepository().load(queryable(pool), organizationId, campaignId);
  const [campaign] = stored.campaigns;
  if (!campaign) throw new Error(`campaign ${campaignId} not found`);
  // With a budget the worker replays in time order, every customer held to the end: not what this loop does.
  if (campaign.budgetMaxCompletions !== null || campaign.budgetMaxPoints !== null) throw new Error('the benchmark replays a campaign without a budget');
  stored.campaigns = [{ ...campaign, status: 'live', startsAt: from, endsAt: to }];
  const organization = await new SimulationsRepository(pgDataSource(pool)).organization(organizationId);
  return {
    rules: compileRules(toRuleSet(stored), CORE_EXTENSIONS),
    timeZone: organization.timeZone,
    multiOrgEnabled: organization.multiOrgEnabled,
    scope: { organizationId, from, to, customerIds: null, order: 'customer' },
  };
}

export interface ReadResult {
  events: number;
  customers: number;
  pages: number;
  seconds: number;
  /** Of `seconds`: waiting for pages (with their customers' profiles); the first page's wait alone. */
  fetchSeconds: number;
  firstPageSeconds: number;
  /** With `keep`: every event in the stream's order, and every customer's profile. */
  kept?: { events: ReplayEvent[]; snapshots: Map<string, CustomerSnapshot> };
}

/**
 * Reads the scope's pages as RunSimulationUseCase.run does (pages of REPLAY_PAGE, profiles with them), without the
 * engine. With `keep`, the events and profiles are kept (the ceiling's input).
 */
export async function readReplay(pool: pg.Pool, scope: ReplayScope, keep: boolean): Promise<ReadResult> {
  const started = performance.now();
  const stream = await new EventLogRepository(pgDataSource(pool)).replay(scope, REPLAY_PAGE[scope.order]);
  const kept = keep ? { events: [] as ReplayEvent[], snapshots: new Map<string, CustomerSnapshot>() } : undefined;
  let [events, customers, pages, fetchMs, firstMs] = [0, 0, 0, 0, 0];
  try {
    for (;;) {
      const t0 = performance.now();
      const page = await stream.next();
      fetchMs += performance.now() - t0;
      if (pages === 0) firstMs = performance.now() - t0;
      if (page === null) break;
      pages += 1;
      customers += page.customers.length;
      events += page.events.length;
      for (const c of page.customers) kept?.snapshots.set(c.id, c);
      kept?.events.push(...page.events);
    }
  } finally {
    await stream.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return { events, customers, pages, seconds, fetchSeconds: fetchMs / 1000, firstPageSeconds: firstMs / 1000, kept };
}

export interface CeilingPass {
  events: number;
  customers: number;
  seconds: number;
  results: SimulationResults;
}

interface Customer extends ReplayedCustomer {
  achieved: Set<number>;
}

/**
 * The engine alone over events in memory: RunSimulationUseCase.run's loop (customer by customer; a customer's state
 * made from its profile when its events begin, let go when the next customer's begin), HistoryReplay and
 * SimulationTally, nothing read or written. Timed from the first event to the results.
 */
export function replayInMemory(setup: ReplaySetup, events: ReplayEvent[], snapshots: Map<string, CustomerSnapshot>): CeilingPass {
  const started = performance.now();
  const replay = new HistoryReplay(setup.rules, setup.multiOrgEnabled, {}, false);
  const tally = new SimulationTally(setup.rules, setup.timeZone);
  const held = new Map<string, Customer>();
  let current: string | null = null;
  let [replayed, customers] = [0, 0];
  for (const event of events) {
    if (current !== event.customerId) {
      // A customer's events are all replayed: the tier it ends on is tallied.
      if (current !== null && held.has(current)) tally.reached(held.get(current)!.snapshot.tierId);
      if (current !== null) held.delete(current);
      current = event.customerId;
      const snapshot = snapshots.get(current);
      if (snapshot) {
        held.set(current, { ...HistoryReplay.start(snapshot), achieved: new Set() });
        customers += 1;
      }
    }
    const customer = held.get(event.customerId);
    if (!customer) continue;
    const result = replay.next(customer, event);
    tally.add(result, customer.achieved);
    replayed += 1;
  }
  for (const customer of held.values()) tally.reached(customer.snapshot.tierId);
  const results = tally.results();
  return { events: replayed, customers, seconds: (performance.now() - started) / 1000, results };
}

/** JSON with every object's keys sorted (jsonb reorders keys: results read back compare by content). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
