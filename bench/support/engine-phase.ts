/**
 * The engine benchmark's measurements (see engine.bench.ts): evaluations per second of one event for one customer
 * against N live behaviors of which 1 or 10 listen, next to the raw ceiling (listener index lookup + one counter).
 */
import { performance } from 'node:perf_hooks';
import { compileRules, CORE_EXTENSIONS, evaluate, EventInstance, RuleSet, CustomerSnapshot, BehaviorRule, ProgressMap } from '../../src/engine/index.js';
import { table } from './load.js';
import type { Figure } from './summary.js';
import { checkTallies } from './verdict.js';

const T0 = Date.UTC(2026, 0, 5, 10);

function behaviorRule(id: number, eventName: string): BehaviorRule {
  return {
    id,
    campaignId: 1 + Math.floor(id / 10),
    name: `Behavior ${id}`,
    tags: [],
    points: 10,
    period: null,
    maxTimesAchievable: null,
    maxTimesAchievablePerPeriod: null,
    maxTimesAchievablePerMonth: null,
    maxTimesAchievablePerYear: null,
    useSamePeriod: false,
    groups: [
      {
        goalCount: 1,
        goals: [
          {
            id: id * 10,
            name: eventName,
            eventName,
            type: 'count',
            uniqueAttribute: null,
            eventCount: 1_000_000_000,
            points: 0,
            required: false,
            criteria: [{ field: 'context.app_name', op: 'eq', value: 'mobile' }],
            minTimeBetweenEvents: null,
            minTimeBetweenEventsCount: 1,
            consecutive: false,
          },
        ],
      },
    ],
    outcomes: [],
  };
}

function ruleSet(behaviors: number, listening: number): RuleSet {
  const list = Array.from({ length: behaviors }, (_, i) => behaviorRule(i + 1, i < listening ? 'visit' : `other_${i}`));
  const campaigns = new Map<number, BehaviorRule[]>();
  for (const b of list) campaigns.set(b.campaignId, [...(campaigns.get(b.campaignId) ?? []), b]);
  return {
    campaigns: [...campaigns].map(([id, bs]) => ({
      id,
      name: `Campaign ${id}`,
      permalink: `c-${id}`,
      status: 'live' as const,
      startsAt: T0 - 86_400_000,
      endsAt: T0 + 365 * 86_400_000,
      divisionId: null,
      optInRequired: false,
      prerequisiteCampaignIds: [],
      targeting: [],
      budget: null,
      behaviors: bs,
    })),
    offers: [],
    tiers: [],
    creatives: [],
    divisionAncestors: { 1: [1] },
  };
}

const customer: CustomerSnapshot = {
  id: 'c',
  timeZone: 'America/New_York',
  divisionId: 1,
  tags: [],
  attributes: {},
  availablePoints: 0,
  lifetimePoints: 0,
  tierId: null,
  qualifiedCampaignIds: [],
  completedCampaignIds: [],
};
const event: EventInstance = { name: 'visit', count: 1, attributes: {}, context: { app_name: 'mobile' }, occurredAt: T0, day: null };

function perSecond(run: () => void, minMs = 400): number {
  for (let i = 0; i < 2000; i += 1) run();
  let n = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < minMs) {
    for (let i = 0; i < 1000; i += 1) run();
    n += 1000;
    elapsed = performance.now() - start;
  }
  return (n / elapsed) * 1000;
}

export interface EngineRow {
  behaviors: number;
  listening: number;
  /** Evaluations per second. */
  engine: number;
  /** Ceiling operations per second. */
  ceiling: number;
}

export const ENGINE_CASES: Array<[behaviors: number, listening: number]> = [[1, 1], [10, 1], [100, 1], [1000, 1], [100, 10], [1000, 10]];

/** Each case measured for at least `minMs` (engine and ceiling alike), on this process's one core. */
export function measureEngine(minMs = 400): EngineRow[] {
  return ENGINE_CASES.map(([behaviors, listening]) => {
    const rules = compileRules(ruleSet(behaviors, listening), CORE_EXTENSIONS);
    let progress: ProgressMap = {};
    const engine = perSecond(() => {
      const result = evaluate({ rules, customer, progress, events: [event], now: T0, multiOrgEnabled: false });
      progress = result.progress;
    }, minMs);
    const counters = new Map<number, number>();
    const ceiling = perSecond(() => {
      for (const goal of rules.listeners.get(event.name) ?? []) counters.set(goal.rule.id, (counters.get(goal.rule.id) ?? 0) + event.count);
    }, minMs);
    // Neither side may be fast for doing nothing: the engine carried progress for every listening behavior, the
    // ceiling counted the event for each of them.
    const counted = (n: number) => (n === listening ? 1 : 0);
    checkTallies([
      { name: `engine, ${behaviors} behaviors`, role: 'workload', errors: 0, stored: Object.keys(progress).length, expected: listening, unit: 'behaviors with progress' },
      { name: `index lookup + counter, ${behaviors} behaviors`, role: 'ceiling', errors: 0, stored: counted(counters.size), expected: 1, unit: `counters for all ${listening} listening` },
    ]);
    if (Object.keys(progress).length < listening) throw new Error(`the engine kept progress for ${Object.keys(progress).length} of ${listening} listening behaviors`);
    return { behaviors, listening, engine, ceiling };
  });
}

/** The table engine.bench.ts prints. */
export function engineTable(rows: EngineRow[]): string {
  const cells = rows.map((r) => [String(r.behaviors), String(r.listening), Math.round(r.engine).toLocaleString('en-US'), Math.round(r.ceiling).toLocaleString('en-US'), `${((r.engine / r.ceiling) * 100).toFixed(1)}%`]);
  return (
    table(['live behaviors', 'listening', 'engine evals/s', 'ceiling ops/s (index lookup + counter)', 'engine / ceiling'], cells) +
    `node ${process.version}, one core, one event per evaluation, customer in America/New_York\n`
  );
}

/** The summary rows: the target is 200,000 evaluations per second with 100 live behaviors, one listening. */
export function engineFigures(rows: EngineRow[]): Figure[] {
  return rows.map((r) => ({
    figure: `engine, ${r.behaviors} live behavior${r.behaviors > 1 ? 's' : ''}, ${r.listening} listening`,
    ...(r.behaviors === 100 && r.listening === 1 ? { key: 'engine.100x1' } : {}),
    value: r.engine,
    unit: 'evals/s',
    ceiling: 'index lookup + counter',
    ceilingValue: r.ceiling,
    ...(r.behaviors === 100 && r.listening === 1 ? { target: '> 200,000 evals/s, one core', met: r.engine > 200_000 } : {}),
  }));
}
