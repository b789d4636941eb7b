/**
 * The fairness benchmark's tables and figures (see fairness.bench.ts): what B saw alone and while A loaded the
 * service, what A's loads and the made-up keys were answered, the processes' CPU and the workers' health, and the
 * issue's targets, each met or NOT met.
 */
import { percentile, table } from './load.js';
import type { Calibration, SimulationState } from './fairness-phase.js';
import { BAD_AUTH_REQUESTS, B_V1_RATE, B_V2_RATE, count, FLOOD_BATCH, is2xx, is5xx, LIMITS_RATE, type Lag, type LimitKind, type Probe } from './fairness-loads.js';
import { B_CUSTOMERS, HISTORY_DAYS, type OrgA, type OrgB } from './fairness-setup.js';
import { WORKERS, type WorkerHealth } from './fairness-workers.js';
import type { OpenLoopResult } from './open-loop.js';
import { figuresTable, fmt, type Figure } from './summary.js';
import { checkTallies, tallyLines, type Tally } from './verdict.js';

export interface PhaseResult {
  from: number;
  startedAt: Date;
  endedAt: Date;
  v1: OpenLoopResult;
  v2: OpenLoopResult;
  lag: Lag;
  /** B's events stored after `from`, by `source status`. */
  stored: Record<string, number>;
  cpuSeconds: { api: number; postgres: number; workers: number[]; bench: number };
}

export interface Measured {
  seconds: number;
  a: OrgA;
  b: OrgB;
  perQueue: Record<string, number>;
  alone: PhaseResult;
  loaded: PhaseResult;
  calibration: Calibration;
  flood: { result: OpenLoopResult; rate: number; stored: number; processedDuringPhase: number; storedByStatus: Record<string, number> };
  limits: Record<LimitKind, OpenLoopResult>;
  badAuth: OpenLoopResult;
  /** Valid keys' reads once a second during the loaded phase. */
  probes: Record<string, Probe>;
  simulations: SimulationState[];
  health: WorkerHealth;
  waitSeconds: number;
}

const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
/** Answers by status, e.g. `200×300 429×2 timeout×1`. */
const answers = (r: OpenLoopResult) =>
  Object.entries(r.statuses)
    .sort()
    .map(([s, n]) => `${s}×${n}`)
    .join(' ');
const notOk = (r: OpenLoopResult) => r.scheduled - count(r, is2xx);
/** From the phase's start to its last answer (each load waits for its requests in flight), in seconds. */
const wall = (p: PhaseResult) => (p.endedAt.getTime() - p.startedAt.getTime()) / 1000;
const stored = (p: PhaseResult, source: 'v1' | 'v2') => Object.entries(p.stored).reduce((n, [k, c]) => n + (k.split(' ')[0] === source ? c : 0), 0);

function requestRow(name: string, r: OpenLoopResult, rate: string): string[] {
  const l = r.latenciesMs;
  return [name, rate, String(r.scheduled), ms(percentile(l, 50)), ms(percentile(l, 99)), ms(l.length ? Math.max(...l) : NaN), answers(r)];
}

export function fairnessReport(m: Measured): { output: string; figures: Figure[] } {
  const { alone, loaded, flood, limits, badAuth } = m;
  const b5xx = [alone.v1, alone.v2, loaded.v1, loaded.v2].reduce((n, r) => n + count(r, is5xx), 0);
  const b429 = [alone.v1, alone.v2, loaded.v1, loaded.v2].reduce((n, r) => n + count(r, (s) => s === '429'), 0);
  const bErrors = [alone.v1, alone.v2, loaded.v1, loaded.v2].reduce((n, r) => n + notOk(r), 0);
  const [p99Alone, p99Loaded] = [percentile(alone.v1.latenciesMs, 99), percentile(loaded.v1.latenciesMs, 99)];
  const stalled = Object.values(m.health.stalled).reduce((n, c) => n + c, 0) + m.health.stalledLines.length;
  const overLimits = (['over: instances', 'over: attribute', 'over: behaviors'] as LimitKind[]).map((k) => limits[k]);
  const answered = (r: OpenLoopResult) => count(r, (s) => /^\d+$/.test(s));
  const over400 = overLimits.reduce((n, r) => n + count(r, (s) => s === '400'), 0);
  const over429 = overLimits.reduce((n, r) => n + count(r, (s) => s === '429'), 0); // shed or turned away before validation
  const overSent = overLimits.reduce((n, r) => n + r.scheduled, 0);
  const overAnswered = overLimits.reduce((n, r) => n + answered(r), 0);
  const badOk = count(badAuth, (s) => s === '401' || s === '429');
  const badAnswered = answered(badAuth);
  const floodAccepted = (count(flood.result, is2xx) * FLOOD_BATCH) / wall(loaded);

  const rows = [
    requestRow('B V1 sync event (1 instance), alone', alone.v1, `${B_V1_RATE}/s`),
    requestRow('B V1 sync event (1 instance), A loading', loaded.v1, `${B_V1_RATE}/s`),
    requestRow('B V2 batch of 1 event, alone', alone.v2, `${B_V2_RATE}/s`),
    requestRow('B V2 batch of 1 event, A loading', loaded.v2, `${B_V2_RATE}/s`),
    requestRow(`A V2 flood, batches of ${FLOOD_BATCH}`, flood.result, `${fmt(flood.rate / FLOOD_BATCH)}/s`),
    ...(Object.entries(limits) as Array<[LimitKind, OpenLoopResult]>).map(([kind, r]) =>
      requestRow(`A V1 ${kind === 'at limits' ? `at the limits (100 instances, 1,024-char notes)` : kind}`, r, `${(r.scheduled / m.seconds).toFixed(2)}/s`),
    ),
    requestRow('made-up keys, wrong secret (bursts of 20)', badAuth, `${BAD_AUTH_REQUESTS} in all`),
  ];
  const lagRow = (name: string, l: Lag) => [name, String(l.events), String(l.processed), ms(l.p50), ms(l.p99), ms(l.max)];
  const cpuRow = (name: string, pick: (p: PhaseResult) => number) => [name, ...[alone, loaded].map((p) => `${pick(p).toFixed(1)} s (${((pick(p) / wall(p)) * 100).toFixed(0)}%)`)];
  const sample = (lines: string[]) => (lines.length ? `; first: ${lines.slice(0, 3).join(' | ')}` : '');
  const queuesLine = Object.entries(m.perQueue)
    .map(([q, n]) => `${q} ${n}`)
    .join(', ');
  const honoured = m.perQueue.events === 1 && m.perQueue.simulations === 1;

  const tallies: Tally[] = [
    ...(['alone', 'A loading'] as const).flatMap((name, i) => {
      const p = [alone, loaded][i];
      return [
        { name: `B V1, ${name}`, role: 'workload', errors: notOk(p.v1), stored: stored(p, 'v1'), expected: count(p.v1, is2xx), unit: 'events' },
        { name: `B V2, ${name}`, role: 'workload', errors: notOk(p.v2), stored: stored(p, 'v2'), expected: count(p.v2, is2xx), unit: 'events' },
      ] satisfies Tally[];
    }),
    { name: 'B V2 events processed (alone)', role: 'baseline', errors: 0, stored: alone.lag.processed, expected: alone.lag.events, unit: 'events' },
    { name: "A's stored history", role: 'baseline', errors: 0, stored: m.a.history.events, expected: m.a.history.events, unit: 'events' },
    { name: "A's V2 flood", role: 'workload', errors: notOk(flood.result), stored: flood.stored, expected: count(flood.result, is2xx) * FLOOD_BATCH, unit: 'events' },
  ];
  checkTallies(tallies); // B's V2 events never processed alone, or A's history short: the benchmark measured nothing
  const lagOk = loaded.lag.p99 <= 2000 && loaded.lag.processed === loaded.lag.events;
  const v1Ok = p99Loaded <= 2 * p99Alone;
  const figures: Figure[] = [
    { figure: "B's V1 p99 while A loads", value: p99Loaded, unit: 'ms', ceiling: "B's V1 p99 alone", ceilingValue: p99Alone, ratioAs: '×', target: '≤ 2× alone', met: v1Ok },
    {
      figure: `B's V2 lag p99 while A loads${loaded.lag.processed < loaded.lag.events ? ` (${loaded.lag.events - loaded.lag.processed} not processed in ${m.waitSeconds} s)` : ''}`,
      value: loaded.lag.p99,
      unit: 'ms',
      ceiling: "B's V2 lag p99 alone",
      ceilingValue: alone.lag.p99,
      ratioAs: '×',
      target: '≤ 2,000 ms',
      met: lagOk,
    },
    { figure: 'lock-renewal failures / stalled jobs', value: `${m.health.lockFailures.length} / ${stalled}`, unit: '', target: '0 / 0', met: m.health.lockFailures.length === 0 && stalled === 0 },
    { figure: "B's 5xx (V1 and V2, both phases)", value: String(b5xx), unit: 'answers', target: '0', met: b5xx === 0 },
    { figure: "B's 429s (valid key)", value: String(b429), unit: 'answers', target: '0', met: b429 === 0 },
    {
      figure: "A's requests over the limits answered 400 (or 429)",
      value: `${over400} (${over429}) of ${overAnswered} answered${overAnswered < overSent ? ` (${overSent - overAnswered} of ${overSent} not answered)` : ''}`,
      unit: '',
      target: 'every answer 400 or 429, some 400',
      met: over400 > 0 && over400 + over429 === overAnswered,
    },
    {
      figure: 'made-up keys answered 401 or 429',
      value: `${badOk} of ${badAnswered} answered${badAnswered < badAuth.scheduled ? ` (${badAuth.scheduled - badAnswered} of ${badAuth.scheduled} not answered)` : ''}`,
      unit: '',
      target: 'every answer 401/429',
      met: badAnswered > 0 && badOk === badAnswered,
    },
    { figure: 'V2 processing capacity, events worker (A events)', value: m.calibration.capacity, unit: 'events/s' },
    { figure: "A's V2 flood accepted", value: floodAccepted, unit: 'events/s', ceiling: 'offered', ceilingValue: flood.rate },
  ];
  const simulationsLine = m.simulations
    .map((s) => `#${s.id} ${s.status}, ${fmt(s.eventsReplayed)} events replayed${s.seconds === null ? '' : ` in ${s.seconds.toFixed(1)} s`}${s.error ? ` (${s.error})` : ''}`)
    .join('; ');
  const output =
    table(['workload', 'rate', 'sent', 'p50 ms', 'p99 ms', 'max ms', 'answers'], rows) +
    '\n' +
    table(["B's V2 events, accepted → processed", 'events', 'processed', 'p50 ms', 'p99 ms', 'max ms'], [lagRow('alone', alone.lag), lagRow('A loading', loaded.lag)]) +
    '\n' +
    table(['CPU (s, % of a core)', 'alone', 'A loading'], [
      cpuRow('API', (p) => p.cpuSeconds.api),
      cpuRow('PostgreSQL (this database)', (p) => p.cpuSeconds.postgres),
      ...WORKERS.map((w, i) => cpuRow(`${w.name} (${Object.entries(w.env).map(([k, v]) => `${k}=${v}`).join(' ')})`, (p) => p.cpuSeconds.workers[i])),
      cpuRow('load generator', (p) => p.cpuSeconds.bench),
    ]) +
    '\n' +
    `B alone vs A loading, V1 p50/p99/max: ${ms(percentile(alone.v1.latenciesMs, 50))}/${ms(p99Alone)}/${ms(Math.max(...alone.v1.latenciesMs))} ms vs ` +
    `${ms(percentile(loaded.v1.latenciesMs, 50))}/${ms(p99Loaded)}/${ms(Math.max(...loaded.v1.latenciesMs))} ms; V2 lag p50/p99/max ${ms(alone.lag.p50)}/${ms(alone.lag.p99)}/${ms(alone.lag.max)} vs ` +
    `${ms(loaded.lag.p50)}/${ms(loaded.lag.p99)}/${ms(loaded.lag.max)} ms (events still pending after ${m.waitSeconds} s count with their wait so far)\n` +
    `B's answers other than 2xx: ${bErrors} (5xx ${b5xx}, 429 ${b429}); V1 alone ${answers(alone.v1)}, loaded ${answers(loaded.v1)}; V2 alone ${answers(alone.v2)}, loaded ${answers(loaded.v2)}; ` +
    `the load generator sent B's requests at most ${ms(Math.max(...[alone, loaded].flatMap((p) => [p.v1.maxSendDelayMs, p.v2.maxSendDelayMs])))} ms late; ` +
    `timeout: the open loop gave up, counted as an error at its latency: no connection within 4 s (its agent's socket timeout while connecting: the API was not accepting) or no answer within its timeout (B 10 s, A's loads and the made-up keys 30 s); a request B gave up on may still be stored (B's tallies below)\n` +
    `capacity: ${fmt(m.calibration.events)} A events (purchase, A's rules) drained in ${m.calibration.seconds.toFixed(2)} s: ${fmt(m.calibration.capacity)} events/s\n` +
    `A's flood: offered ${fmt(flood.rate)} events/s (10 × capacity), accepted ${fmt(floodAccepted)} events/s (${answers(flood.result)}); ` +
    `A's events stored in the phase (by source and status, read after the wait for B's) ${JSON.stringify(flood.storedByStatus)}; A's events processed during the phase ${fmt(flood.processedDuringPhase)} (${fmt(flood.processedDuringPhase / wall(loaded))}/s over its ${wall(loaded).toFixed(0)} s, until the last answer)\n` +
    `A's simulations (draft campaign, whole history, ${HISTORY_DAYS} days), ${m.waitSeconds} s after the phase at most: ${simulationsLine}\n` +
    `A's V1 at and over the limits (${LIMITS_RATE}/s, every fourth over): at the limits ${answers(limits['at limits'])}; over ${over400} of ${overSent} answered 400 (${over429} 429); made-up keys: ${answers(badAuth)}\n` +
    `valid keys read once a second during the phase: ${Object.entries(m.probes).map(([name, p]) => `${name} ${JSON.stringify(p.statuses)}${Object.entries(p.bodies).map(([s, b]) => `, first ${s}: ${b || '(no body)'}`).join('')}`).join('; ')}\n` +
    `workers per queue (BullMQ connections): ${queuesLine}${honoured ? '' : ' — WORKER_QUEUES not honoured: every worker process serves every queue'}\n` +
    `worker health: lock-renewal failures ${m.health.lockFailures.length}${sample(m.health.lockFailures)}; stalled jobs (QueueEvents) ${JSON.stringify(m.health.stalled)}, log lines naming stalled ${m.health.stalledLines.length}${sample(m.health.stalledLines)}; ` +
    `other queue errors ${m.health.queueErrors.length}${sample(m.health.queueErrors)}; error lines ${m.health.errorLines.length}${sample(m.health.errorLines)}\n` +
    `setup: A ${m.a.behaviors} live behaviors, ${m.a.goals} live goals, ${fmt(m.a.history.customers)} customers, ${fmt(m.a.history.events)} stored events over ${HISTORY_DAYS} days (written in ${m.a.history.seconds.toFixed(1)} s); ` +
    `B ${B_CUSTOMERS} customers, 2 behaviors; ${m.seconds} s of load per phase (the phase ends at its last answer: alone ${wall(alone).toFixed(0)} s, loaded ${wall(loaded).toFixed(0)} s; CPU % of that); node ${process.version}\n` +
    tallyLines(tallies) +
    `targets: B's V1 p99 loaded ≤ 2× alone (${(p99Loaded / p99Alone).toFixed(1)}×: ${met(v1Ok)}); B's V2 lag p99 loaded ≤ 2,000 ms (${ms(loaded.lag.p99)} ms: ${met(lagOk)}); ` +
    `lock-renewal failures 0 and stalled 0 (${m.health.lockFailures.length}, ${stalled}: ${met(m.health.lockFailures.length === 0 && stalled === 0)}); B's 5xx 0 (${b5xx}: ${met(b5xx === 0)})\n` +
    '\n' +
    figuresTable(figures);
  return { output, figures };
}
