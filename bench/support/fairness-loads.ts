/**
 * The fairness benchmark's requests (see fairness.bench.ts): B's V1 sync events and single-event V2 batches, A's V2
 * flood, A's V1 requests at and over the limits, requests with made-up keys; and what the database says of them
 * afterwards (events stored, B's lag from acceptance to processing).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { percentile } from './load.js';
import { openLoop, type OpenLoopResult, type Request } from './open-loop.js';
import { A_CUSTOMERS, B_CUSTOMERS, LIMITS, overLimitBatch, type OrgA, type OrgB } from './fairness-setup.js';

export const B_V1_RATE = 20;
export const B_V2_RATE = 5;
/** Events per batch of A's flood. */
export const FLOOD_BATCH = 500;
/** A's V1 requests at and over the limits, per second (every fourth one over). */
export const LIMITS_RATE = 4;
/** Requests with made-up keys, in bursts of BAD_AUTH_BURST spread over the phase. */
export const BAD_AUTH_REQUESTS = 400;
export const BAD_AUTH_BURST = 20;

const json = (auth: string) => ({ authorization: auth, 'content-type': 'application/json' });
const sim = (k: number) => `sim-${String(k).padStart(7, '0')}`;

/** B's workload: V1 sync events (one instance each) to random customers, single-event V2 batches. */
export function bRequests(url: string, b: OrgB): { v1: (i: number) => Request; v2: (i: number) => Request } {
  const base = `${url}/priv/v1/apps/${b.tenant.key}`;
  return {
    v1: (i) => ({ url: `${base}/users/${b.ids[(i * 7919) % b.ids.length]}/events`, method: 'POST', headers: json(b.tenant.auth), body: JSON.stringify({ events: { visit: { store_id: `s${i % 13}` } } }) }),
    v2: (i) => ({
      url: `${url}/priv/v2/apps/${b.tenant.key}/events`,
      method: 'POST',
      headers: json(b.tenant.auth),
      body: JSON.stringify({ events: [{ name: 'visit', external_id: `b-${1 + ((i * 104_729) % B_CUSTOMERS)}`, context: { store_id: `s${i % 13}` } }] }),
    }),
  };
}

/** Bodies of FLOOD_BATCH `purchase` events of random A customers, built once (the generator shares the CPU). */
export function floodBodies(count: number): string[] {
  let seed = 7;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, () =>
    JSON.stringify({
      events: Array.from({ length: FLOOD_BATCH }, () => ({
        name: 'purchase',
        external_id: sim(Math.floor(random() * A_CUSTOMERS)),
        context: { store_id: `store-${Math.floor(random() * 60)}`, amount: Math.round(random() * 20_000) / 100 },
      })),
    }),
  );
}

export function floodRequest(url: string, a: OrgA, bodies: string[]): (i: number) => Request {
  return (i) => ({ url: `${url}/priv/v2/apps/${a.tenant.key}/events`, method: 'POST', headers: json(a.tenant.auth), body: bodies[i % bodies.length] });
}

/** Customers of A that take the requests at the limits (their unique goal gathers the 1,024-character notes). */
const LIMIT_CUSTOMERS = 5;

/** A string of exactly `length` characters that starts with `tag` (unique values for the unique goal). */
const note = (tag: string, length: number) => tag + 'x'.repeat(Math.max(0, length - tag.length));

export type LimitKind = 'at limits' | 'over: instances' | 'over: attribute' | 'over: behaviors';

/**
 * A's V1 requests at the limits: the most instances a request may hold, each a `visit` with a new note of the longest
 * length allowed, to one of LIMIT_CUSTOMERS customers; and over one limit each: one instance too many, one character
 * too many, one behavior too many for A's campaign (a behavior batch; the campaign holds the most behaviors and live
 * goals allowed). Answers each kind's request builder.
 */
export function limitRequests(url: string, a: OrgA): Record<LimitKind, (i: number) => Request> {
  const base = `${url}/priv/v1/apps/${a.tenant.key}`;
  const headers = json(a.tenant.auth);
  const visits = (tag: string, count: number, length: number) =>
    JSON.stringify({ events: { visit: Array.from({ length: count }, (_, k) => ({ note: note(`${tag}-${k}-`, length), store_id: `store-${k % 60}` })) } });
  const event = (i: number, body: string): Request => ({ url: `${base}/external/users/${sim(i % LIMIT_CUSTOMERS)}/events`, method: 'POST', headers, body });
  return {
    'at limits': (i) => event(i, visits(`a${i}`, LIMITS.v1Instances, LIMITS.attributeLength)),
    'over: instances': (i) => event(i, visits(`i${i}`, LIMITS.v1Instances + 1, 16)),
    'over: attribute': (i) => event(i, visits(`c${i}`, 1, LIMITS.attributeLength + 1)),
    'over: behaviors': () => ({ url: `${base}/management/campaigns/${a.campaignId}/behaviors/_batch`, method: 'POST', headers, body: overLimitBatch() }),
  };
}

/**
 * A's limit requests over `seconds`, each kind in an open loop of its own: the requests at the limits at 3/4 of
 * LIMITS_RATE, each kind over them at a third of the rest. Answers each kind's statuses and latencies.
 */
export async function limitLoad(requests: Record<LimitKind, (i: number) => Request>, seconds: number): Promise<Record<LimitKind, OpenLoopResult>> {
  const kinds = Object.keys(requests) as LimitKind[];
  const rate = (k: LimitKind) => (k === 'at limits' ? (LIMITS_RATE * 3) / 4 : LIMITS_RATE / 4 / 3);
  const results = await Promise.all(kinds.map((k) => openLoop(requests[k], rate(k), seconds, 30_000)));
  return Object.fromEntries(kinds.map((k, i) => [k, results[i]])) as Record<LimitKind, OpenLoopResult>;
}

/**
 * The made-up keys: BAD_AUTH_REQUESTS requests, BAD_AUTH_BURST at a time spread evenly over `seconds`, each a V1 event
 * or a management read naming a random 32-hex key with a wrong secret. Expected: 401, then 429 once the address has
 * used its failures (AUTH_FAILURES_PER_MINUTE).
 */
export async function badAuthLoad(url: string, seconds: number): Promise<OpenLoopResult> {
  const bursts = Math.ceil(BAD_AUTH_REQUESTS / BAD_AUTH_BURST);
  const request = (i: number): Request => {
    const key = randomBytes(16).toString('hex');
    const headers = { authorization: `Basic ${Buffer.from(`${key}:wrong-${i}`).toString('base64')}`, 'content-type': 'application/json' };
    return i % 2 === 0
      ? { url: `${url}/priv/v1/apps/${key}/users/${randomUUID()}/events`, method: 'POST', headers, body: JSON.stringify({ events: { visit: {} } }) }
      : { url: `${url}/priv/v1/apps/${key}/management/campaigns`, headers };
  };
  const results = await Promise.all(
    Array.from({ length: bursts }, async (_, burst) => {
      await new Promise((r) => setTimeout(r, (burst * seconds * 1000) / bursts));
      return openLoop((i) => request(burst * BAD_AUTH_BURST + i), 1e6, BAD_AUTH_BURST / 1e6, 30_000);
    }),
  );
  return mergeOpen(results, seconds);
}

export interface Probe {
  statuses: Record<string, number>;
  /** The first answer of each status other than 2xx: its body (the error envelope says which limit answered). */
  bodies: Record<string, string>;
}

/**
 * Once a second for `seconds`, a cheap authenticated read with each tenant's valid key (its campaigns, one per page),
 * keeping the body of the first answer of each status other than 2xx: evidence of why a valid key was refused.
 */
export async function probeKeys(url: string, tenants: Record<string, { key: string; auth: string }>, seconds: number): Promise<Record<string, Probe>> {
  const probes: Record<string, Probe> = Object.fromEntries(Object.keys(tenants).map((name) => [name, { statuses: {}, bodies: {} }]));
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const tick = new Promise((r) => setTimeout(r, 1000));
    await Promise.all(
      Object.entries(tenants).map(async ([name, t]) => {
        const p = probes[name];
        let status: string;
        let body = '';
        try {
          const res = await fetch(`${url}/priv/v1/apps/${t.key}/management/campaigns?limit=1&page=1`, { headers: { authorization: t.auth }, signal: AbortSignal.timeout(30_000) });
          [status, body] = [String(res.status), await res.text()];
        } catch (error) {
          status = error instanceof Error && error.name === 'TimeoutError' ? 'timeout' : 'error';
        }
        p.statuses[status] = (p.statuses[status] ?? 0) + 1;
        if (!is2xx(status) && !(status in p.bodies)) p.bodies[status] = body.slice(0, 300);
      }),
    );
    await tick;
  }
  return probes;
}

/** Open-loop results put together (statuses added, latencies joined). */
export function mergeOpen(results: OpenLoopResult[], seconds: number): OpenLoopResult {
  const statuses: Record<string, number> = {};
  for (const r of results) for (const [s, n] of Object.entries(r.statuses)) statuses[s] = (statuses[s] ?? 0) + n;
  return {
    scheduled: results.reduce((n, r) => n + r.scheduled, 0),
    statuses,
    latenciesMs: results.flatMap((r) => r.latenciesMs),
    maxSendDelayMs: Math.max(0, ...results.map((r) => r.maxSendDelayMs)),
    seconds,
  };
}

/** Answers of a status class (`2`, `4`, `5`) or of one status. */
export function count(r: OpenLoopResult, match: (status: string) => boolean): number {
  return Object.entries(r.statuses).reduce((n, [s, c]) => n + (match(s) ? c : 0), 0);
}
export const is2xx = (s: string) => /^2\d\d$/.test(s);
export const is5xx = (s: string) => /^5\d\d$/.test(s);

export const maxId = async (db: pg.Pool) => Number((await db.query(`SELECT coalesce(max(id), 0) AS id FROM events`)).rows[0].id);

/** Events of an organization after event id `from`, by source and status. */
export async function eventsAfter(db: pg.Pool, organizationId: number, from: number): Promise<Record<string, number>> {
  const rows = (await db.query(`SELECT source, status, count(*)::int AS n FROM events WHERE organization_id = $1 AND id > $2 GROUP BY 1, 2`, [organizationId, from])).rows;
  return Object.fromEntries(rows.map((r) => [`${r.source} ${r.status}`, r.n as number]));
}

export interface Lag {
  events: number;
  processed: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Waits (at most `waitMs`) until no V2 event of the organization after `from` is pending, then reads their lag from
 * acceptance to processing (processed_at − created_at). Events still pending count with their lag so far (now −
 * created_at): a lower bound.
 */
export async function v2Lag(db: pg.Pool, organizationId: number, from: number, waitMs: number): Promise<Lag> {
  const deadline = performance.now() + waitMs;
  const pending = async () => Number((await db.query(`SELECT count(*)::int AS n FROM events WHERE organization_id = $1 AND source = 'v2' AND id > $2 AND status = 'pending'`, [organizationId, from])).rows[0].n);
  while ((await pending()) > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  const rows = (
    await db.query(
      `SELECT extract(epoch FROM coalesce(processed_at, clock_timestamp()) - created_at) * 1000 AS ms, status <> 'pending' AS done
         FROM events WHERE organization_id = $1 AND source = 'v2' AND id > $2`,
      [organizationId, from],
    )
  ).rows as Array<{ ms: string; done: boolean }>;
  const ms = rows.map((r) => Number(r.ms));
  return { events: rows.length, processed: rows.filter((r) => r.done).length, p50: percentile(ms, 50), p99: percentile(ms, 99), max: Math.max(...ms) };
}
