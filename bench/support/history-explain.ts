/**
 * EXPLAIN (ANALYZE, BUFFERS, WAL) of the statements each measured route runs, on the small and the large database, for
 * sample customers: execution time and the shared buffers each touched (hit: in PostgreSQL's cache; read: from the
 * OS, its cache or the disk). A statement whose work grows with history shows here as more buffers in the large row.
 * The statements are the service's own: captured from its compiled repository, use cases and services with stand-ins
 * for their connections (the V1 path's, V2 acceptance's) or through a TypeORM data source with a logger that records
 * what it sends (the timeline). Writes are explained inside a transaction that is rolled back.
 */
import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { DataSource, type Logger as TypeOrmLogger } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source.js';
import type { Tenant } from '../../src/common/http/request-context.js';
import type { Statement, UnitOfWork } from '../../src/common/database/unit-of-work.js';
import { EvaluationRepository } from '../../src/modules/evaluation/evaluation.repository.js';
import { TierFacts } from '../../src/modules/customers-state/tiers/tier-facts.repository.js';
import { writeStatement } from '../../src/modules/evaluation/write-statement.js';
import { emptyPlan, type WritePlan } from '../../src/modules/evaluation/write-plan.js';
import { V2EventsUseCase } from '../../src/modules/events/v2-events.use-case.js';
import type { CustomerExperiments } from '../../src/modules/customers-state/customer-experiments.repository.js';
import { CustomersService } from '../../src/modules/customers-state/customers.service.js';
import type { TierStandings } from '../../src/modules/customers-state/tiers/tier-standings.js';
import { NotificationsService } from '../../src/modules/customers-state/notifications.service.js';
import { EventLogRepository } from '../../src/modules/events/event-log/event-log.repository.js';
import { countBefore, eventsOf, externalId, kindAt, storeName, type HistoryPlan } from './history-data.js';
import { customerUuid, GROUPS, V2_BATCH } from './history-workloads.js';

export interface Explained {
  statement: string;
  ms: number;
  hit: number;
  read: number;
  walBytes: number;
  fpi: number;
  /** The plan's text for the first sample customer. */
  plan: string;
}

interface Captured {
  label: string;
  text: string;
  values: unknown[];
  write: boolean;
}

/** A unit of work that records the statements a repository method would run, answering no rows. */
function recorder(into: Captured[], label: (s: Statement) => string, write = false): UnitOfWork {
  return {
    run: async (s: Statement) => {
      into.push({ label: label(s), text: s.text, values: s.values ?? [], write });
      return [];
    },
  } as unknown as UnitOfWork;
}

/** The statements of one V1 sync event (a visit) for customer c: the locked customer, its progress, the write. */
async function v1Statements(plan: HistoryPlan, c: number): Promise<Captured[]> {
  const out: Captured[] = [];
  const repo = new EvaluationRepository(new TierFacts());
  const { tenant, sizes } = plan;
  const key = { userId: customerUuid(c) };
  const behaviorIds = Object.values(tenant.behaviorIds);
  await repo.customer(recorder(out, () => 'V1: customer, locked (customer-by-id-locked)'), tenant.organizationId, key, true);
  await repo.progressByKey(recorder(out, () => 'V1: progress (progress-by-id)'), tenant.organizationId, key, behaviorIds);
  const visits = countBefore('visit', c, eventsOf(sizes, c));
  const now = new Date().toISOString();
  const writePlan: WritePlan = {
    ...emptyPlan({ insert: [] }),
    events: {
      insert: [
        {
          organization_id: tenant.organizationId,
          api_key_id: tenant.apiKeyId,
          customer_id: key.userId,
          user_ref: externalId(c),
          source: 'v1',
          transaction_id: null,
          name: 'visit',
          count: 1,
          attributes: { store_id: storeName(c, visits) },
          context: { channel: 'app' },
          division_id: null,
          campaign_id: null,
          occurred_at: now,
          status: 'processed',
          reason: null,
          result: { state: 'qualified', points: 2, completions: [{ campaign_id: tenant.campaignId, behavior_id: tenant.behaviorIds.visit, achieved: visits + 1 }] },
          points: 2,
          request_id: 'explain',
          qualify: false,
        },
      ],
    },
    progress: [
      {
        customer_id: key.userId,
        behavior_id: tenant.behaviorIds.visit,
        state: { goals: { [tenant.goalIds.visit]: { count: 0, pivots: [], lastDay: null, completed: false, countedAt: [] } }, window: null, achieved: visits + 1, completions: [] },
        achieved: visits + 1,
      },
    ],
    customers: [{ id: key.userId, available_points: 1_000_000, lifetime_points: 1_000_000, tier_id: null, tier_review_at: null, tags: ['explorer'], qualified_campaign_ids: [], completed_campaign_ids: [] }],
    credits: [0, 1].map((k) => ({
      idx: 0,
      organization_id: tenant.organizationId,
      customer_id: key.userId,
      amount: 1,
      reason: k === 0 ? 'goal' : 'behavior',
      source: { campaign_id: tenant.campaignId, behavior_id: tenant.behaviorIds.visit, goal_id: k === 0 ? tenant.goalIds.visit : null, offer_id: null },
      earned_at: new Date().toISOString(),
    })),
  };
  const write = writeStatement(writePlan);
  out.push({ label: `V1: the write (${write.name})`, text: write.text, values: write.values ?? [], write: true });
  return out;
}

/** Retrieval's statements: the customer (no lock) and its progress in every live behavior. */
async function retrievalStatements(plan: HistoryPlan, c: number): Promise<Captured[]> {
  const out: Captured[] = [];
  const repo = new EvaluationRepository(new TierFacts());
  const key = { userId: customerUuid(c) };
  await repo.customer(recorder(out, () => 'retrieval: customer (customer-by-id)'), plan.tenant.organizationId, key, false);
  return out;
}

/** V2 acceptance's insert of a batch of 100 events for customers from c on, captured from the use case. */
async function v2Statement(plan: HistoryPlan, c: number): Promise<Captured[]> {
  const out: Captured[] = [];
  const db = {
    query: async (text: string, values: unknown[]) => {
      out.push({ label: `V2: insert of a batch of ${V2_BATCH}`, text, values, write: true });
      return [];
    },
  };
  const stub = { add: () => undefined };
  const noEnrichers = { active: false, enrich: () => null };
  const useCase = new V2EventsUseCase(db as unknown as DataSource, {} as never, {} as never, stub as never, { now: () => Date.now() }, noEnrichers as never);
  const events = Array.from({ length: V2_BATCH }, (_, k) => {
    const cc = (c + k * 7919) % plan.sizes.customers;
    return { name: kindAt(cc, eventsOf(plan.sizes, cc)), external_id: externalId(cc), transaction_id: randomUUID(), context: { channel: 'app' } };
  });
  await useCase.execute(tenantOf(plan), { events }, 'explain');
  return out;
}

function tenantOf(plan: HistoryPlan): Tenant {
  const t = plan.tenant;
  return { organizationId: t.organizationId, applicationId: 0, apiKeyId: t.apiKeyId, apiKey: t.key, multiOrgEnabled: false, timeZone: 'America/New_York', rootDivisionId: t.rootDivisionId };
}

/** The timeline's statements as TypeORM sends them (customer, page, count, notifications), recorded by running it. */
async function timelineStatements(ds: DataSource, captured: Captured[], plan: HistoryPlan, c: number): Promise<Captured[]> {
  captured.length = 0;
  // The timeline reads no tier and no experiments: the service's tier standings and experiments are never asked.
  const service = new CustomersService(ds, new NotificationsService(ds), {} as TierStandings, {} as CustomerExperiments);
  await service.timeline(tenantOf(plan), { userId: customerUuid(c) }, { page: 1, limit: 10 });
  const labels = ['timeline: customer', 'timeline: page of events', 'timeline: count of events', 'timeline: notifications of the events'];
  return captured.map((s, i) => ({ ...s, label: labels[i] ?? `timeline: statement ${i + 1}` }));
}

/**
 * The event log's reads for reversals and simulations (EventLogRepository): the events of one of the customer's
 * purchases by its transaction id (as generated: `ord_` and 20 hex digits of md5('order-' || i)), and a page of 100
 * of the customer's events in one month of the middle of the 12.
 */
async function eventLogStatements(ds: DataSource, captured: Captured[], plan: HistoryPlan, c: number): Promise<Captured[]> {
  const repository = new EventLogRepository(ds);
  const j = Array.from({ length: eventsOf(plan.sizes, c) }, (_, k) => k).find((k) => kindAt(c, k) === 'purchase') ?? 0;
  const transactionId = `ord_${createHash('md5').update(`order-${j * plan.sizes.customers + c}`).digest('hex').slice(0, 20)}`;
  const from = new Date(plan.t0Ms + plan.spanMs / 2);
  captured.length = 0;
  await repository.byTransaction(plan.tenant.apiKeyId, transactionId);
  await repository.ofCustomer(customerUuid(c), { from, to: new Date(from.getTime() + 30 * 86_400_000) }, { limit: 100 });
  const labels = ['reversal: events by transaction id', "simulation: a month of the customer's events"];
  return captured.map((s, i) => ({ ...s, label: labels[i] ?? `event log: statement ${i + 1}` }));
}

interface PlanNode {
  'Node Type': string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  'WAL Bytes'?: number;
  'WAL FPI'?: number;
  Plans?: PlanNode[];
}

type Totals = { hit: number; read: number; walBytes: number; fpi: number };

/**
 * What a statement cost in all. A node's figures include its children's, but a data-modifying CTE that the final
 * SELECT does not read runs after the top node (to completion, in ExecPostprocessPlan), outside its figures: for a
 * statement that writes, the sum of its ModifyTable nodes (each with the scans that feed it); for a read, the top
 * node. Foreign-key triggers (run after the statement) are in neither.
 */
function totals(plan: PlanNode): Totals {
  const of = (n: PlanNode): Totals => ({ hit: n['Shared Hit Blocks'] ?? 0, read: n['Shared Read Blocks'] ?? 0, walBytes: n['WAL Bytes'] ?? 0, fpi: n['WAL FPI'] ?? 0 });
  const writes: PlanNode[] = [];
  const walk = (n: PlanNode) => (n['Node Type'] === 'ModifyTable' ? writes.push(n) : (n.Plans ?? []).forEach(walk));
  walk(plan);
  if (writes.length === 0) return of(plan);
  return writes.map(of).reduce((a, b) => ({ hit: a.hit + b.hit, read: a.read + b.read, walBytes: a.walBytes + b.walBytes, fpi: a.fpi + b.fpi }));
}

/** EXPLAIN (ANALYZE, BUFFERS) of the statements for each sample customer; per statement, the median time and mean buffers. */
export async function explainStatements(databaseUrl: string, plan: HistoryPlan, samples: number): Promise<Explained[]> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const captured: Captured[] = [];
  const logger: TypeOrmLogger = {
    logQuery: (query, parameters) => void (/^\s*(SELECT|INSERT|UPDATE|DELETE)/i.test(query) && captured.push({ label: '', text: query, values: (parameters as unknown[] | undefined) ?? [], write: false })),
    logQueryError: () => undefined,
    logQuerySlow: () => undefined,
    logSchemaBuild: () => undefined,
    logMigration: () => undefined,
    log: () => undefined,
  };
  const ds = new DataSource({ ...dataSourceOptions(databaseUrl, 1), logging: ['query'], logger });
  await ds.initialize();
  const results = new Map<string, { ms: number[]; hit: number; read: number; walBytes: number; fpi: number; plan: string; n: number }>();
  /** Every route's statements for customer c. */
  const statementsOf = async (c: number): Promise<Captured[]> => [
    ...(await v1Statements(plan, c)),
    ...(await retrievalStatements(plan, c)),
    ...(await timelineStatements(ds, captured, plan, c)),
    ...(await eventLogStatements(ds, captured, plan, c)),
    ...(await v2Statement(plan, c)),
  ];
  try {
    // The plans as text, for one more customer of the reads' groups (not in the figures: a statement explained twice
    // in one transaction would find its pages warm and its rows already changed).
    const c0 = 4 * Math.floor(plan.sizes.customers / 12) + GROUPS.timeline;
    for (const st of await statementsOf(c0)) {
      await db.query('BEGIN');
      try {
        const text = (await db.query(`EXPLAIN (ANALYZE, BUFFERS, WAL) ${st.text}`, st.values)).rows.map((r) => r['QUERY PLAN']).join('\n');
        results.set(st.label, { ms: [], hit: 0, read: 0, walBytes: 0, fpi: 0, plan: text, n: 0 });
      } catch (error) {
        results.set(st.label, { ms: [], hit: 0, read: 0, walBytes: 0, fpi: 0, plan: `ERROR: ${(error as Error).message}`, n: 0 });
      } finally {
        await db.query('ROLLBACK');
      }
    }
    for (let s = 0; s < samples; s += 1) {
      // Customers of the reads' groups, spread over the organization: their history is the generated one.
      const c = 4 * Math.floor(((s + 0.5) / samples) * Math.floor(plan.sizes.customers / 4)) + (s % 2 ? GROUPS.timeline : GROUPS.retrieval);
      for (const st of await statementsOf(c)) {
        await db.query('BEGIN');
        const entry = results.get(st.label) ?? { ms: [], hit: 0, read: 0, walBytes: 0, fpi: 0, plan: '', n: 0 };
        try {
          const json = (await db.query(`EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) ${st.text}`, st.values)).rows[0]['QUERY PLAN'][0] as { Plan: PlanNode; 'Execution Time': number };
          entry.ms.push(json['Execution Time']);
          const t = totals(json.Plan);
          entry.hit += t.hit;
          entry.read += t.read;
          entry.walBytes += t.walBytes;
          entry.fpi += t.fpi;
          entry.n += 1;
          results.set(st.label, entry);
        } catch (error) {
          // A schema the statement does not fit (the service would fail the same way): reported, not fatal.
          results.set(st.label, { ...entry, ms: [], plan: `ERROR: ${(error as Error).message}` });
        } finally {
          await db.query('ROLLBACK');
        }
      }
    }
  } finally {
    await ds.destroy();
    await db.end();
  }
  return [...results.entries()].map(([statement, r]) => {
    const sorted = [...r.ms].sort((a, b) => a - b);
    const n = Math.max(1, r.n);
    return { statement, ms: sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN, hit: r.hit / n, read: r.read / n, walBytes: r.walBytes / n, fpi: r.fpi / n, plan: r.plan };
  });
}
