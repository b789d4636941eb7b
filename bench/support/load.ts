/** A closed-loop load generator: `concurrency` workers each send the next request as soon as the last answers. */
import { performance } from 'node:perf_hooks';
import { cpuBetween, type CpuSnapshot } from './cpu.js';

export interface LoadResult {
  requests: number;
  errors: number;
  statuses: Record<number, number>;
  seconds: number;
  latenciesMs: number[];
  /** CPU microseconds per request of the API, of PostgreSQL and of the benchmark process (see measured()). */
  cpuPerRequest?: { api: number; postgres: number; bench: number };
  /** The slices an interleaved() result merges, one per round. */
  rounds?: LoadResult[];
}

/** Runs a load and adds what it cost each process per request. */
export async function measured(cpu: () => CpuSnapshot, run: () => Promise<LoadResult>): Promise<LoadResult> {
  const before = cpu();
  const result = await run();
  const after = cpu();
  const per = (seconds: number) => (seconds * 1e6) / Math.max(1, result.requests);
  return {
    ...result,
    cpuPerRequest: { api: per(cpuBetween(before.api, after.api)), postgres: per(cpuBetween(before.postgres, after.postgres)), bench: per(after.bench - before.bench) },
  };
}

/** `concurrency` workers each send the next request as soon as the last answers, while `more(i)` holds. */
async function closedLoop(send: (i: number) => Promise<number>, concurrency: number, more: (i: number) => boolean): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (more(next)) {
        const i = next++;
        const t = performance.now();
        try {
          const status = await send(i);
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status >= 400) errors += 1;
        } catch {
          errors += 1;
        }
        latenciesMs.push(performance.now() - t);
      }
    }),
  );
  return { requests: latenciesMs.length, errors, statuses, seconds: (performance.now() - start) / 1000, latenciesMs };
}

/**
 * Runs each load in turn for `seconds / rounds`, `rounds` times over, and merges each load's slices: on a shared
 * machine a slow spell then slows every load alike instead of the one that happened to run during it.
 */
export async function interleaved(loads: Array<(seconds: number) => Promise<LoadResult>>, seconds: number, rounds = 5): Promise<LoadResult[]> {
  const slices: LoadResult[][] = loads.map(() => []);
  for (let round = 0; round < rounds; round += 1) {
    for (const [i, run] of loads.entries()) slices[i].push(await run(seconds / rounds));
  }
  return slices.map(merge);
}

/**
 * interleaved() over named loads: answers each load's merged result under its name. Adding a workload to a phase is
 * one more entry (and its row and figures where the phase prints them).
 */
export async function interleavedNamed<K extends string>(
  loads: Record<K, (seconds: number) => Promise<LoadResult>>,
  seconds: number,
  rounds = 5,
): Promise<Record<K, LoadResult>> {
  const names = Object.keys(loads) as K[];
  const results = await interleaved(
    names.map((name) => loads[name]),
    seconds,
    rounds,
  );
  return Object.fromEntries(names.map((name, i) => [name, results[i]])) as Record<K, LoadResult>;
}

/** Requests answered 5xx or not answered at all (a connection error or a timeout: no status). */
export function failures5xx(r: LoadResult): number {
  const answered = Object.values(r.statuses).reduce((n, c) => n + c, 0);
  const fivexx = Object.entries(r.statuses).reduce((n, [status, count]) => n + (Number(status) >= 500 ? count : 0), 0);
  return fivexx + (r.requests - answered);
}

function merge(results: LoadResult[]): LoadResult {
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const statuses: Record<number, number> = {};
  for (const r of results) for (const [status, n] of Object.entries(r.statuses)) statuses[Number(status)] = (statuses[Number(status)] ?? 0) + n;
  const cpu = (k: 'api' | 'postgres' | 'bench') => results.reduce((sum, r) => sum + (r.cpuPerRequest?.[k] ?? 0) * r.requests, 0) / Math.max(1, requests);
  return {
    requests,
    errors: results.reduce((n, r) => n + r.errors, 0),
    statuses,
    seconds: results.reduce((n, r) => n + r.seconds, 0),
    latenciesMs: results.flatMap((r) => r.latenciesMs),
    rounds: results,
    ...(results.every((r) => r.cpuPerRequest) ? { cpuPerRequest: { api: cpu('api'), postgres: cpu('postgres'), bench: cpu('bench') } } : {}),
  };
}

/** Closed loop for `seconds`. */
export function load(send: (i: number) => Promise<number>, concurrency: number, seconds: number): Promise<LoadResult> {
  const deadline = performance.now() + seconds * 1000;
  return closedLoop(send, concurrency, () => performance.now() < deadline);
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i])).join(' | ')} |`;
  return `${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|\n${rows.map(line).join('\n')}\n`;
}

export function summary(name: string, r: LoadResult, ceiling?: LoadResult): string[] {
  const rps = r.requests / r.seconds;
  const ratio = ceiling ? `${((rps / (ceiling.requests / ceiling.seconds)) * 100).toFixed(0)}%` : '';
  const cpu = r.cpuPerRequest ? [r.cpuPerRequest.api, r.cpuPerRequest.postgres, r.cpuPerRequest.bench].map((us) => us.toFixed(0)) : [];
  return [name, rps.toFixed(0), percentile(r.latenciesMs, 50).toFixed(1), percentile(r.latenciesMs, 99).toFixed(1), String(r.errors), ratio, ...cpu];
}

/** Header cells of the CPU columns summary() adds for measured() results. */
export const CPU_COLUMNS = ['API CPU µs/req', 'PG CPU µs/req', 'bench CPU µs/req'];

import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * A lean HTTP client for load (node:http with keep-alive): fetch costs the load generator several times more CPU per
 * request, and on a small machine that CPU is taken from the server being measured.
 */
export function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; agent?: http.Agent; timeoutMs?: number } = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: options.agent ?? agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    if (options.timeoutMs !== undefined) req.setTimeout(options.timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Closed loop as `load`, but for exactly `count` requests (to fill a backlog of a known size). */
export function loadCount(send: (i: number) => Promise<number>, concurrency: number, count: number): Promise<LoadResult> {
  return closedLoop(send, concurrency, (i) => i < count);
}

/**
 * An open-loop load generator: request i starts at `i / perSecond` seconds, whether or not earlier ones have answered
 * (a steady arrival rate, as for measuring lag below capacity).
 */
export async function paced(send: (i: number) => Promise<number>, perSecond: number, seconds: number): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.max(1, Math.floor(perSecond * seconds));
  for (let i = 0; i < total; i += 1) {
    const wait = start + (i * 1000) / perSecond - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(
      (async () => {
        const t = performance.now();
        try {
          const status = await send(i);
          statuses[status] = (statuses[status] ?? 0) + 1;
          if (status >= 400) errors += 1;
        } catch {
          errors += 1;
        }
        latenciesMs.push(performance.now() - t);
      })(),
    );
  }
  await Promise.all(inFlight);
  return { requests: latenciesMs.length, errors, statuses, seconds: (performance.now() - start) / 1000, latenciesMs };
}
