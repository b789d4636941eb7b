/**
 * The simulation benchmark's worker process: started as `node [--cpu-prof ...] dist/src/worker.js` (the flags
 * NODE_OPTIONS does not take), its resident memory read from /proc, the simulation row watched while it runs, and the
 * CPU profile (when one was asked for) summed up by function and by part of the code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { onInterrupt } from './cleanup.js';
import { stopChild, waitForLine } from './processes.js';

/** A worker process with `env`; with `profileDir`, V8's CPU profile is written there when it exits. Answers once it is ready. */
export async function startWorker(env: NodeJS.ProcessEnv, profileDir?: string): Promise<ChildProcess> {
  const flags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--cpu-prof-interval=500'] : [];
  const child = spawn(process.execPath, [...flags, 'dist/src/worker.js'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const forget = onInterrupt(() => stopChild(child)); // Ctrl-C skips the callers' `finally`
  child.once('exit', forget);
  try {
    // The log goes to stdout; waitForLine keeps reading it, so the pipe never fills.
    await waitForLine(child, 'worker ready', 60_000);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return child;
}

/** The process's resident set (VmRSS), in bytes; null once it is gone. */
export function rssBytes(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

export interface WatchSample {
  /** ms since the watch began. */
  at: number;
  rss: number | null;
  status: string;
  /** The row's events_replayed (written by the runner every second). */
  eventsReplayed: number;
}

export interface FinishedSimulation {
  status: string;
  error: string | null;
  customers: number;
  eventsReplayed: number;
  results: unknown;
  startedAt: Date;
  completedAt: Date;
  /** completed_at − started_at, in seconds (PostgreSQL's clock both). */
  seconds: number;
}

/** Every `everyMs`, the worker's RSS and the row's status and count, until the simulation has finished. */
export async function watchSimulation(db: pg.Pool, id: number, pid: number, { everyMs = 250, timeoutMs = 30 * 60_000 } = {}): Promise<{ samples: WatchSample[]; finished: FinishedSimulation }> {
  const began = performance.now();
  const samples: WatchSample[] = [];
  for (;;) {
    const rss = rssBytes(pid);
    const [row] = (await db.query(`SELECT status, events_replayed FROM simulations WHERE id = $1`, [id])).rows as Array<{ status: string; events_replayed: string }>;
    samples.push({ at: performance.now() - began, rss, status: row.status, eventsReplayed: Number(row.events_replayed) });
    if (!['queued', 'running'].includes(row.status)) break;
    if (rss === null) throw new Error(`the worker (pid ${pid}) exited during the simulation`);
    if (performance.now() - began > timeoutMs) throw new Error(`simulation ${id} still ${row.status} after ${timeoutMs / 1000} s`);
    await sleep(everyMs);
  }
  const [row] = (
    await db.query(
      `SELECT status, error, customers, events_replayed, results, started_at, completed_at, extract(epoch FROM completed_at - started_at)::float8 AS seconds
         FROM simulations WHERE id = $1`,
      [id],
    )
  ).rows;
  return {
    samples,
    finished: {
      status: row.status,
      error: row.error,
      customers: row.customers,
      eventsReplayed: Number(row.events_replayed),
      results: row.results,
      startedAt: row.started_at,
      completedAt: row.completed_at,
      seconds: row.seconds,
    },
  };
}

/** The RSS of the first sample of the running simulation at `fraction` of its events or more (null when none was taken). */
export function rssAt(samples: WatchSample[], total: number, fraction: number): WatchSample | null {
  return samples.find((s) => s.status === 'running' && s.rss !== null && s.eventsReplayed >= fraction * total) ?? null;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The part of the code a frame belongs to. */
function partOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(program)') return 'V8/native (program)';
  if (url.includes('/dist/src/engine/')) return 'engine (src/engine)';
  if (url.includes('/dist/src/modules/simulations/') || url.includes('/dist/src/modules/evaluation/history-replay')) return 'simulation loop and tally';
  if (/node_modules\/(pg|pg-protocol|pg-types|postgres-[a-z]+|pgpass|pg-pool)\//.test(url)) return 'pg driver (protocol, row parsing)';
  if (url.includes('node_modules/typeorm/')) return 'typeorm';
  if (url.includes('/dist/src/')) return 'other service code';
  if (url.startsWith('node:') || url === '') return 'Node internals and builtins (JSON.parse, Map, ...)';
  return 'other modules';
}

/**
 * Sums a .cpuprofile's samples: self time by part and by function, and inclusive time of the functions named in
 * `inclusiveOf` (`name@part of its file's path`), over the samples from the first to the last one inside
 * `windowFunction` (the run, not the process's start or its idle time before and after).
 */
export function summarizeProfile(file: string, windowFunction = 'run', windowUrl = 'run-simulation.use-case', inclusiveOf: string[] = []): string {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const ancestors = (id: number) => {
    const out: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) out.push(byId.get(at)!);
    return out;
  };
  const inWindow = profile.samples.map((id) => ancestors(id).some((n) => n.callFrame.functionName === windowFunction && n.callFrame.url.includes(windowUrl)));
  const first = inWindow.indexOf(true);
  const last = inWindow.lastIndexOf(true);
  if (first < 0) return `profile ${file}: no sample inside ${windowFunction} (${windowUrl})\n`;
  const self = new Map<string, number>();
  const parts = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (let i = first; i <= last; i += 1) {
    const delta = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i];
    const node = byId.get(profile.samples[i])!;
    const f = node.callFrame;
    total += delta;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + delta);
    parts.set(partOf(f), (parts.get(partOf(f)) ?? 0) + delta);
    const seen = new Set<string>();
    for (const a of ancestors(node.id)) {
      for (const wanted of inclusiveOf) {
        const [name, where = ''] = wanted.split('@');
        if (a.callFrame.functionName === name && a.callFrame.url.includes(where) && !seen.has(wanted)) {
          seen.add(wanted);
          inclusive.set(wanted, (inclusive.get(wanted) ?? 0) + delta);
        }
      }
    }
  }
  const pct = (us: number) => `${((us / total) * 100).toFixed(1)}%`;
  const lines = [`CPU profile ${file}: ${(total / 1e6).toFixed(1)} s of samples from the run's first to its last (wall time, idle included)`];
  lines.push('self time by part:');
  for (const [part, us] of [...parts].sort((a, b) => b[1] - a[1])) lines.push(`  ${pct(us).padStart(6)}  ${(us / 1e6).toFixed(2).padStart(6)} s  ${part}`);
  if (inclusiveOf.length) {
    lines.push('inclusive time of:');
    for (const name of inclusiveOf) lines.push(`  ${pct(inclusive.get(name) ?? 0).padStart(6)}  ${name}`);
  }
  lines.push('top functions by self time:');
  for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) lines.push(`  ${pct(us).padStart(6)}  ${key}`);
  return `${lines.join('\n')}\n`;
}

/** The newest .cpuprofile in `dir` written after `since` (ms since the epoch). */
export function newestProfile(dir: string, since: number): string | null {
  if (!fs.existsSync(dir)) return null;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(f).mtimeMs >= since)
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
  return files[0] ?? null;
}
