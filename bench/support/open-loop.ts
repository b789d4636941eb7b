/**
 * An open-loop load generator: request i is due at `i / perSecond` seconds and is sent then, whatever the earlier
 * ones are doing (no cap on requests in flight). Its latency runs from that due time, not from the moment it was
 * actually sent, so a server (or a generator) that falls behind shows in the percentiles instead of silently
 * lowering the rate (coordinated omission).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentile } from './load.js';

export interface OpenLoopResult {
  /** Requests due over the run (perSecond × seconds), all of them sent. */
  scheduled: number;
  /** Answered by status, plus `timeout` and `error <code>` (connection failures). */
  statuses: Record<string, number>;
  /** From each request's due time to its answer (or failure). */
  latenciesMs: number[];
  /** The latest a request was sent after its due time (the generator's own lag). */
  maxSendDelayMs: number;
  /** From the first due time to the last answer. */
  seconds: number;
}

export interface Request {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Its own agent: an open loop may hold many requests in flight, and each needs a connection of its own. A connection
 * idle for 4 s is closed on this side, before the server's keep-alive timeout (Node's 5 s) closes it: else a burst
 * after a slow spell reuses connections the server is closing at that moment, and those requests fail (ECONNRESET)
 * for the client's sake, not the server's.
 */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024, timeout: 4000 });

/** One request; answers its status, or `timeout` / `error <code>`. */
function send(request: Request, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const req = http.request(request.url, { method: request.method ?? 'GET', headers: request.headers, agent }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(String(res.statusCode ?? 0)));
      res.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code ?? error.message}`));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('timeout')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.message === 'timeout' ? 'timeout' : `error ${error.code ?? error.message}`));
    req.end(request.body);
  });
}

/** Sends `request(i)` at `perSecond` for `seconds`, then waits for the last answers (each bounded by `timeoutMs`). */
export async function openLoop(request: (i: number) => Request, perSecond: number, seconds: number, timeoutMs = 10_000): Promise<OpenLoopResult> {
  const scheduled = Math.max(1, Math.round(perSecond * seconds));
  const statuses: Record<string, number> = {};
  const latenciesMs: number[] = [];
  const inFlight: Array<Promise<void>> = [];
  let maxSendDelayMs = 0;
  const start = performance.now();
  const due = (i: number) => start + (i * 1000) / perSecond;
  for (let i = 0; i < scheduled; ) {
    // Everything due by now goes out at once (after a timer fired late, the backlog is sent, not dropped).
    const now = performance.now();
    for (; i < scheduled && due(i) <= now; i += 1) {
      const at = due(i);
      maxSendDelayMs = Math.max(maxSendDelayMs, now - at);
      inFlight.push(
        send(request(i), timeoutMs).then((status) => {
          statuses[status] = (statuses[status] ?? 0) + 1;
          latenciesMs.push(performance.now() - at);
        }),
      );
    }
    if (i < scheduled) await new Promise((r) => setTimeout(r, Math.max(0, due(i) - performance.now())));
  }
  await Promise.all(inFlight);
  return { scheduled, statuses, latenciesMs, maxSendDelayMs, seconds: (performance.now() - start) / 1000 };
}

/** Answers with a 2xx status. */
export function succeeded(r: OpenLoopResult): number {
  return Object.entries(r.statuses).reduce((n, [status, count]) => n + (/^2\d\d$/.test(status) ? count : 0), 0);
}

/** `seconds` of `request` at `perSecond`, in windows of `window` seconds (a p99 per window shows when it was slow). */
export async function openLoopWindows(request: (i: number) => Request, perSecond: number, window: number, seconds: number): Promise<OpenLoopResult[]> {
  const list: OpenLoopResult[] = [];
  for (let t = 0; t < seconds; t += window) list.push(await openLoop(request, perSecond, window));
  return list;
}

/** Requests sent, and answered 2xx, over windows. */
export const sentIn = (list: OpenLoopResult[]) => list.reduce((n, r) => n + r.scheduled, 0);
export const answeredIn = (list: OpenLoopResult[]) => list.reduce((n, r) => n + succeeded(r), 0);
/** Every latency of the windows, and each window's p99 (ms, space-separated). */
export const latenciesIn = (list: OpenLoopResult[]) => list.flatMap((r) => r.latenciesMs);
export const p99OfEach = (list: OpenLoopResult[]) => list.map((r) => percentile(r.latenciesMs, 99).toFixed(0)).join(' ');
