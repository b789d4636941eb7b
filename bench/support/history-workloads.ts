/**
 * The history benchmark's workloads, the same on the small and the large database: V1 sync events, V2 acceptance
 * (batches of 100), retrieval and the timeline, each for customers picked over the whole organization (every one has
 * history), with requests that continue each customer's own event pattern.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import type { HistoryApi } from './history-server.js';
import { countBefore, eventsOf, externalId, kindAt, storeName, type HistoryPlan, type Kind } from './history-data.js';
import { load, measured, send, type LoadResult } from './load.js';

export const CONCURRENCY = 10;
export const V2_BATCH = 100;

/** The id the generator gives customer c (md5('history-' || c)::uuid). */
export function customerUuid(c: number): string {
  const h = createHash('md5').update(`history-${c}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The customers of one workload: those with c % 4 = `group` (so the reads never meet customers whose history the
 * writes grow during the run: in the small database, V2 batches add dozens of events to each of its customers),
 * walked with a stride that visits every one of them before any twice (a prime not dividing their count), from a
 * random start.
 */
export function customersOf(n: number, group: 0 | 1 | 2 | 3, stride: number): (i: number) => number {
  const count = Math.floor((n - 1 - group) / 4) + 1;
  while (gcd(stride, count) !== 1) stride += 2;
  const start = Math.floor(Math.random() * count);
  return (i) => 4 * ((start + i * stride) % count) + group;
}

/** The customer groups: reads (retrieval 0, timeline 1) apart from writes (V1 2, V2 3). */
export const GROUPS = { retrieval: 0, timeline: 1, v1: 2, v2: 3 } as const;

/** The V1 body of a customer's next event: the next step of its pattern, a new store for a visit. */
function v1Body(kind: Kind, c: number, visitIndex: number, transactionId: string): string {
  if (kind === 'visit') return JSON.stringify({ events: { visit: { store_id: storeName(c, visitIndex), context: { channel: 'app' } } } });
  if (kind === 'purchase') return JSON.stringify({ events: { purchase: { amount: 20 + (c % 180), currency: 'USD', sku: `SKU-${String(c % 500).padStart(4, '0')}` } }, transaction_id: transactionId });
  return JSON.stringify({ events: { login: { context: { device: ['ios', 'android', 'web'][c % 3] } } } });
}

export type Workload = 'v1' | 'v2' | 'retrieval' | 'timeline';
export const WORKLOADS: Array<{ key: Workload; name: string; unit: string; perRequest: number }> = [
  { key: 'v1', name: 'V1 sync event (existing customer)', unit: 'req/s', perRequest: 1 },
  { key: 'v2', name: `V2 acceptance, batches of ${V2_BATCH}`, unit: 'events/s', perRequest: V2_BATCH },
  { key: 'retrieval', name: 'retrieval GET users/:id/events', unit: 'req/s', perRequest: 1 },
  { key: 'timeline', name: 'timeline GET users/:id/timeline?limit=10', unit: 'req/s', perRequest: 1 },
];

interface Traffic {
  /** Buffers of the database hit in shared_buffers and read from the OS (pg_stat_database). */
  hit: number;
  read: number;
  /** WAL written and its full-page images (pg_stat_wal: the whole server, so anything else running counts too). */
  walBytes: number;
  fpi: number;
}

/** A load's result with the database's buffer and WAL traffic over it. */
export type HistoryResult = LoadResult & { traffic?: Traffic };

/** Buffers and WAL per request over a result's rounds (interleaved() keeps each round's result). */
export function trafficPerRequest(r: HistoryResult): Traffic {
  const rounds = (r.rounds ?? [r]) as HistoryResult[];
  const requests = rounds.reduce((n, x) => n + x.requests, 0);
  const sum = (k: keyof Traffic) => rounds.reduce((n, x) => n + (x.traffic?.[k] ?? NaN), 0) / Math.max(1, requests);
  return { hit: sum('hit'), read: sum('read'), walBytes: sum('walBytes'), fpi: sum('fpi') };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The four loads on one database: each answers a measured closed-loop load of `seconds`, with the CPU and buffers
 * it cost. Backends publish their statistics when idle, at most once a second: each load waits 1.1 s after its
 * requests before reading them.
 */
export function workloads(api: HistoryApi, plan: HistoryPlan, stats: pg.Pool): Record<Workload, (seconds: number) => Promise<LoadResult>> {
  const { tenant, sizes } = plan;
  const auth = `Basic ${Buffer.from(`${tenant.key}:${tenant.secret}`).toString('base64')}`;
  const headers = { authorization: auth, 'content-type': 'application/json' };
  const base = `${api.url}/priv/v1/apps/${tenant.key}`;
  const n = sizes.customers;
  // Events sent to each customer in this run, so that the next one continues its pattern.
  const sent = new Map<number, number>();
  const next = (c: number) => {
    const k = sent.get(c) ?? 0;
    sent.set(c, k + 1);
    const j = eventsOf(sizes, c) + k;
    return { kind: kindAt(c, j), visits: countBefore('visit', c, j) };
  };
  const v1Pick = customersOf(n, GROUPS.v1, 7919);
  const readPick = customersOf(n, GROUPS.retrieval, 104_729);
  const timelinePick = customersOf(n, GROUPS.timeline, 1_299_709);
  const v2Pick = customersOf(n, GROUPS.v2, 15_485_863);
  let v1Count = 0;
  let v2Count = 0;
  const v1 = () => {
    const i = v1Count++;
    const c = v1Pick(i);
    const { kind, visits } = next(c);
    return send(`${base}/users/${customerUuid(c)}/events`, { method: 'POST', headers, body: v1Body(kind, c, visits, `ord_${randomBytes(10).toString('hex')}`) });
  };
  const v2 = () => {
    const b = v2Count++;
    const events = Array.from({ length: V2_BATCH }, (_, k) => {
      const c = v2Pick(b * V2_BATCH + k);
      const kind = kindAt(c, eventsOf(sizes, c));
      const context = kind === 'visit' ? { store_id: storeName(c, k), channel: 'app' } : kind === 'login' ? { device: 'web' } : { channel: 'web' };
      return { name: kind, external_id: externalId(c), transaction_id: randomUUID(), context };
    });
    return send(`${api.url}/priv/v2/apps/${tenant.key}/events`, { method: 'POST', headers, body: JSON.stringify({ events }) });
  };
  const retrieval = (i: number) => send(`${base}/users/${customerUuid(readPick(i))}/events`, { headers });
  const timeline = (i: number) => send(`${base}/users/${customerUuid(timelinePick(i))}/timeline?limit=10`, { headers });
  const cpu = () => api.cpu();
  // Counters of their own (not load()'s i): interleaved rounds restart i at 0, the customers must not repeat.
  let reads = 0;
  let timelines = 0;
  const traffic = async (): Promise<Traffic> => {
    const r = (
      await stats.query(
        `SELECT d.blks_hit, d.blks_read, w.wal_bytes, w.wal_fpi FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = current_database()`,
      )
    ).rows[0];
    return { hit: Number(r.blks_hit), read: Number(r.blks_read), walBytes: Number(r.wal_bytes), fpi: Number(r.wal_fpi) };
  };
  const withBlocks = async (send: () => Promise<number>, seconds: number): Promise<HistoryResult> => {
    const before = await traffic();
    const result: HistoryResult = await measured(cpu, () => load(send, CONCURRENCY, seconds));
    await sleep(1100);
    const after = await traffic();
    return { ...result, traffic: { hit: after.hit - before.hit, read: after.read - before.read, walBytes: after.walBytes - before.walBytes, fpi: after.fpi - before.fpi } };
  };
  return {
    v1: (s) => withBlocks(v1, s),
    v2: (s) => withBlocks(v2, s),
    retrieval: (s) => withBlocks(() => retrieval(reads++), s),
    timeline: (s) => withBlocks(() => timeline(timelines++), s),
  };
}

/** One request of each kind with its answer checked: the data must answer as the service's own would. */
export async function smokeTest(api: HistoryApi, plan: HistoryPlan): Promise<string[]> {
  const { tenant, sizes } = plan;
  const headers = { authorization: `Basic ${Buffer.from(`${tenant.key}:${tenant.secret}`).toString('base64')}`, 'content-type': 'application/json' };
  const base = `${api.url}/priv/v1/apps/${tenant.key}`;
  const problems: string[] = [];
  // A customer of the timeline's group: no workload writes its history.
  const c = 4 * Math.floor(sizes.customers / 8) + GROUPS.timeline;
  const id = customerUuid(c);
  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const user = await get(`/users/${id}`);
  if (user.status !== 200) return [`GET users/${id}: ${user.status}`];
  const before = Number((user.body.user as { available_points: number }).available_points);
  const timeline = await get(`/users/${id}/timeline?limit=10`);
  const events = (timeline.body.events ?? []) as unknown[];
  if (timeline.status !== 200 || events.length !== Math.min(10, eventsOf(sizes, c)) || Number(timeline.body.total) !== eventsOf(sizes, c)) {
    problems.push(`timeline of customer ${c}: ${timeline.status}, ${events.length} events, total ${String(timeline.body.total)} (expected ${eventsOf(sizes, c)})`);
  }
  const retrieval = await get(`/users/${id}/events`);
  const behaviors = (retrieval.body.behaviors ?? {}) as Record<string, { achieved: number }>;
  const visits = countBefore('visit', c, eventsOf(sizes, c));
  if (retrieval.status !== 200 || behaviors.Visit?.achieved !== visits || behaviors['Three stores a week']?.achieved !== Math.floor(visits / 3)) {
    problems.push(`retrieval of customer ${c}: ${retrieval.status}, Visit achieved ${behaviors.Visit?.achieved} (expected ${visits})`);
  }
  // A visit to a store new in its cycle: Visit completes (2 points), Three stores a week counts the store (and
  // completes if it is the cycle's third).
  const res = await fetch(`${base}/users/${id}/events`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ events: { visit: { store_id: storeName(c, visits) } }, read_only: true }),
  });
  const answer = (await res.json()) as { available_points?: number; behaviors?: Record<string, { achieved: number; deltas?: { achieved: number } }> };
  const third = (visits + 1) % 3 === 0;
  if (
    res.status !== 200 ||
    answer.available_points !== before + 2 ||
    answer.behaviors?.Visit?.achieved !== visits + 1 ||
    answer.behaviors?.['Three stores a week']?.achieved !== Math.floor(visits / 3) + (third ? 1 : 0)
  ) {
    problems.push(`read_only visit of customer ${c}: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  }
  return problems;
}
