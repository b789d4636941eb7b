import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import type { Statement, UnitOfWork } from '../../common/database/unit-of-work.js';
import { RulesRepository } from '../campaigns/rules/rules.repository.js';
import { TierFacts } from '../customers-state/index.js';
import { BEGIN_STATEMENT } from './customer-transactions.js';
import { EvaluationRepository } from './evaluation.repository.js';
import { emptyPlan, type WritePlan } from './write-plan.js';
import { domainRowsStatements } from './write-statement.js';

/**
 * Every statement of the event path, printed to docs/queries/event-path.sql so that a reviewer reads a change of the
 * path's SQL as a diff (as immich checks in server/src/queries/*.sql). This spec fails when the file is not what the
 * code sends; `UPDATE_QUERIES=1 npm run test:unit -- --testPathPatterns queries` writes it anew.
 */
const FILE = 'docs/queries/event-path.sql';

function recorder() {
  const statements: Array<{ title: string; statement: Statement }> = [];
  let title = '';
  const answer = [{ event_ids: ['1'], occurred_keys: ['2026-01-01T00:00:00.000000Z'], notification_ids: null, delivery_ids: null }];
  const uow = {
    run: async (statement: Statement) => {
      statements.push({ title, statement });
      return /^(write|store)-/.test(statement.name ?? '') ? answer : [];
    },
    query: async (text: string) => {
      statements.push({ title, statement: { text } });
      return [];
    },
  } as unknown as UnitOfWork;
  return { uow, statements, as: (t: string) => (title = t) };
}

const sample = { customer_id: '00000000-0000-4000-8000-000000000001', organization_id: 1 };
const plan = (events: WritePlan['events'], withDeliveries: boolean): WritePlan => ({
  ...emptyPlan(events),
  deliveries: withDeliveries ? [{ idx: 0, organization_id: 1, id: 'x', type: 'points.credited', created_at: '', notification_n: null, data: {} }] : [],
});

async function printed(): Promise<string> {
  const { uow, statements, as } = recorder();
  const repo = new EvaluationRepository(new TierFacts());
  const id = { userId: sample.customer_id };
  const external = { externalId: 'c-1' };
  as('CustomerTransactions: every transaction of the path begins with');
  await uow.run({ text: BEGIN_STATEMENT });
  for (const [key, name] of [
    [id, 'id'],
    [external, 'external id'],
  ] as const) {
    as(`EvaluationRepository.customer by ${name}, locked (V1, perform)`);
    await repo.customer(uow, 1, key, true);
    as(`EvaluationRepository.customer by ${name}, not locked (read_only, qualify, retrieval)`);
    await repo.customer(uow, 1, key, false);
    as(`EvaluationRepository.progressByKey by ${name} (same round trip as the customer)`);
    await repo.progressByKey(uow, 1, key, [1]);
    as(`EvaluationRepository.experimentsByKey by ${name} (same round trip, when the organization runs experiments)`);
    await repo.experimentsByKey(uow, 1, key);
  }
  as("EvaluationRepository.experiments (the events worker: its customers' assignments, when their organization runs experiments)");
  await repo.experiments(uow, [sample.customer_id]);
  as('EvaluationRepository.progress (behaviors the current rules add; the worker: all its customers)');
  await repo.progress(uow, [sample.customer_id], [1]);
  as('EvaluationRepository.lockCustomersOfEvents (the events worker)');
  await repo.lockCustomersOfEvents(uow, [{ id: '1', occurredAt: '2026-01-01T00:00:00.000000Z' }]);
  as('EvaluationRepository.jobEvents (the events worker, same round trip)');
  await repo.jobEvents(uow, [{ id: '1', occurredAt: '2026-01-01T00:00:00.000000Z' }]);
  as('EvaluationRepository.transactionUsed (read_only)');
  await repo.transactionUsed(uow, 1, 't-1');
  for (const deliveries of [false, true]) {
    as(`EvaluationRepository.write: new events (V1, perform)${deliveries ? ', with webhook deliveries' : ''}; sent with COMMIT`);
    await repo.write(uow, plan({ insert: [] }, deliveries));
    as(`EvaluationRepository.write: stored events marked (the events worker)${deliveries ? ', with webhook deliveries' : ''}; sent with COMMIT`);
    await repo.write(uow, plan({ mark: [] }, deliveries));
  }
  as('EvaluationRepository.budgets, not locked (read_only and qualify, for organizations with a budgeted campaign)');
  await repo.budgets(uow, [1], false);
  as('EvaluationRepository.budgets, locked (only after a write found a budget without room: the evaluation runs again)');
  await repo.budgets(uow, [1], true);
  as('EvaluationRepository.write: new events with campaign budgets spent where they fit (else it fails: BE001) and a budget exhausted; sent with COMMIT');
  await repo.write(uow, { ...plan({ insert: [] }, false), budgets: { use: [{ campaign_id: 1, completions: 1, points: 10 }], refused: [2] } });
  as("EvaluationRepository.write: stored events marked, with rewards' after-commit effects into their outbox; sent with COMMIT");
  await repo.write(uow, { ...plan({ mark: [] }, false), effects: [{ idx: 0, ...sample, kind: 'coupon', campaign_id: 1, behavior_id: 1, payload: {} }] });
  as('EvaluationRepository.write: new events assigning a customer to an experiment (and starting it), with the groups\' sums in the activity; sent with COMMIT');
  await repo.write(uow, {
    ...plan({ insert: [] }, false),
    experiments: {
      assignments: [{ customer_id: sample.customer_id, campaign_id: 1, group_name: 'A', assigned_at: '2026-01-01T00:00:00.000Z', metric_sum: 12.5, metric_events: 1 }],
      started: [{ campaign_id: 1, at: '2026-01-01T00:00:00.000Z' }],
    },
  });
  as("EvaluationRepository.write: a domain action's rows for a table of its own (perform), sent before the write statement");
  await uow.run(domainRowsStatements('referral_links', [{ referee_id: sample.customer_id, referrer_id: sample.customer_id }])[0]);
  as('EvaluationRepository.storePending (V1 async=true)');
  await repo.storePending(uow, []);
  as('RulesRepository.load: on the transaction connection, only when the rules version is new to the process');
  await new RulesRepository().load(uow, 1);
  const blocks = statements.map(({ title: t, statement }) => `-- ${t}${statement.name ? `\n-- prepared as "${statement.name}"` : ''}\n${dedent(statement.text)};\n`);
  return `-- The statements of the event path, as the service sends them (generated by src/modules/evaluation/queries.spec.ts).\n\n${blocks.join('\n')}`;
}

function dedent(text: string): string {
  const lines = text.split('\n');
  const indent = Math.min(...lines.slice(1).filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return [lines[0], ...lines.slice(1).map((l) => l.slice(Number.isFinite(indent) ? indent - 2 : 0))].join('\n').trimEnd();
}

describe('the event path SQL (docs/queries/event-path.sql)', () => {
  it('is what the repositories send', async () => {
    const text = await printed();
    if (process.env.UPDATE_QUERIES === '1') writeFileSync(FILE, text);
    expect(readFileSync(FILE, 'utf8')).toBe(text);
  });
});
