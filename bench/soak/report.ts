/**
 * The soak's report, as markdown: requests by kind and status, 5xx inside and outside the fault windows, the time to
 * recover after each fault, the invariants of the books, throughput per minute and each process's memory, with a
 * verdict against the issue's targets.
 */
import type { BooksReport } from './books.js';
import type { FaultWindow } from './faults.js';
import type { Sent } from './record.js';

/** After a fault has ended, errors still count as the fault's for this long (clients see it recover within it). */
export const RECOVERY_TARGET_MS = 10_000;

export interface SoakOutcome {
  seed: number;
  minutes: number;
  startedAt: number;
  endedAt: number;
  sent: Sent[];
  skipped: number;
  windows: FaultWindow[];
  books: BooksReport;
  /** Resident memory (kB) of each process, sampled every few seconds through the run. */
  memory: MemorySample[];
  drainMs: number;
}

export interface MemorySample {
  at: number;
  kb: Record<string, number>;
}

/** Each process's longest life between the kills the faults made (a minute of warm-up left out): its memory then. */
export function memoryRows(samples: MemorySample[], windows: FaultWindow[], endedAt: number): Array<{ process: string; livedMs: number; startMb: number; endMb: number; peakMb: number }> {
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.kb)))];
  return names.flatMap((process) => {
    const kills = windows.filter((w) => `${w.fault.kind === 'kill_api' ? 'api' : w.fault.kind === 'kill_worker' ? 'worker' : ''}-${w.fault.target}` === process);
    const bounds = [samples[0]?.at ?? 0, ...kills.flatMap((w) => [w.startedAt, w.endedAt]), endedAt];
    let best: { livedMs: number; taken: number[] } | null = null;
    for (let i = 0; i + 1 < bounds.length; i += 2) {
      const [from, to] = [bounds[i], bounds[i + 1]];
      const taken = samples.filter((s) => s.at >= from + 60_000 && s.at <= to && s.kb[process] !== undefined).map((s) => s.kb[process] / 1024);
      if (taken.length >= 2 && (!best || to - from > best.livedMs)) best = { livedMs: to - from, taken };
    }
    return best ? [{ process, livedMs: best.livedMs, startMb: best.taken[0], endMb: best.taken[best.taken.length - 1], peakMb: Math.max(...best.taken) }] : [];
  });
}

const inWindow = (at: number, windows: FaultWindow[]) => windows.some((w) => at >= w.startedAt && at <= w.endedAt + RECOVERY_TARGET_MS);
const failed = (s: Sent) => s.status === 0 || s.status >= 500;
const ok = (s: Sent) => s.status >= 200 && s.status < 300;
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** The time from a fault's end to the first 2xx answer of a request sent after it (to the API it killed, for an API). */
export function recoveryMs(window: FaultWindow, sent: Sent[]): number | null {
  const after = sent.filter((s) => s.at >= window.endedAt && ok(s) && (window.fault.kind !== 'kill_api' || s.api === window.fault.target));
  if (after.length === 0) return null;
  return Math.min(...after.map((s) => s.at + s.ms)) - window.endedAt;
}

/**
 * The books' verdicts: no invariant violated, and none that checked nothing. An invariant that looked at no item
 * (no request of its kind answered, a check that could not find its rows, a run too short to reach it) proves
 * nothing, so it does not pass: the run is not met, and the table says "checked nothing".
 */
export function booksVerdicts(books: BooksReport): Array<[string, boolean]> {
  const violated = books.violations.length + books.checked.reduce((sum, c) => sum + c.violations, 0);
  const idle = books.checked.filter((c) => c.items === 0).map((c) => c.invariant);
  return [
    ['no invariant violated', violated === 0],
    [`every invariant checked something${idle.length > 0 ? ` (checked nothing: ${idle.join('; ')})` : ''}`, idle.length === 0],
  ];
}

export function soakReport(o: SoakOutcome): { text: string; met: boolean } {
  const lines: string[] = [];
  const verdicts: Array<[string, boolean]> = [];
  lines.push(`# Soak: seed ${o.seed}, ${o.minutes} minutes`, '', `Rerun: \`npm run soak -- --minutes ${o.minutes} --seed ${o.seed}\``, '');

  const kinds = [...new Set(o.sent.map((s) => s.kind))];
  const statuses = [...new Set(o.sent.map((s) => s.status))].sort((a, b) => a - b);
  lines.push('## Requests by kind and status (0: no answer)', '', `| kind | ${statuses.join(' | ')} | all |`, `|---|${statuses.map(() => '---:').join('|')}|---:|`);
  for (const kind of kinds) {
    const of = o.sent.filter((s) => s.kind === kind);
    lines.push(`| ${kind} | ${statuses.map((st) => of.filter((s) => s.status === st).length).join(' | ')} | ${of.length} |`);
  }
  const codes = new Map<string, number>();
  for (const s of o.sent) if (s.code) codes.set(`${s.status} ${s.code}`, (codes.get(`${s.status} ${s.code}`) ?? 0) + 1);
  lines.push('', `Error codes: ${[...codes].map(([c, n]) => `${c} × ${n}`).join(', ') || 'none'}. Not sent (a kind had 40 unanswered): ${o.skipped}.`, '');

  const failures = o.sent.filter(failed);
  const outside = failures.filter((s) => !inWindow(s.at, o.windows) && !inWindow(s.at + s.ms, o.windows));
  lines.push('## 5xx and unanswered requests', '', `Inside fault windows (a fault, and ${seconds(RECOVERY_TARGET_MS)} s after it): ${failures.length - outside.length}; outside: ${outside.length} (target 0).`);
  for (const s of outside.slice(0, 10)) lines.push(`- ${new Date(s.at).toISOString()} ${s.kind} api-${s.api} → ${s.status} ${s.code ?? ''} after ${s.ms} ms`);
  verdicts.push(['no 5xx or unanswered request outside the fault windows', outside.length === 0]);

  lines.push('', '## Faults and recovery', '', '| at (s) | fault | down (s) | recovered after (s) |', '|---:|---|---:|---:|');
  let recovered = true;
  for (const w of o.windows) {
    const r = recoveryMs(w, o.sent);
    if (r === null || r > RECOVERY_TARGET_MS || w.error) recovered = false;
    const target = w.fault.target === undefined ? '' : `-${w.fault.target}`;
    lines.push(`| ${seconds(w.startedAt - o.startedAt)} | ${w.fault.kind}${target}${w.error ? ` (error: ${w.error})` : ''} | ${seconds(w.endedAt - w.startedAt)} | ${r === null ? 'never' : seconds(r)} |`);
  }
  verdicts.push([`every fault recovered from within ${seconds(RECOVERY_TARGET_MS)} s of its end`, recovered]);

  lines.push('', '## The books', '', '| invariant | checked | violated |', '|---|---:|---:|');
  for (const c of o.books.checked) lines.push(`| ${c.invariant} | ${c.items === 0 ? '0: checked nothing' : c.items} | ${c.violations} |`);
  for (const v of o.books.violations.slice(0, 30)) lines.push(`- ${v.invariant}: ${v.detail}`);
  if (o.books.notes.length > 0) lines.push('', 'Not compared:', ...o.books.notes.map((n) => `- ${n}`));
  verdicts.push(...booksVerdicts(o.books));

  lines.push('', `## Throughput (2xx answers per minute; the workers drained in ${seconds(o.drainMs)} s after the traffic stopped)`, '');
  const minutes = Math.max(1, Math.round((o.endedAt - o.startedAt) / 60_000));
  const perMinute = Array.from({ length: minutes }, (_, m) => o.sent.filter((s) => ok(s) && s.at >= o.startedAt + m * 60_000 && s.at < o.startedAt + (m + 1) * 60_000).length);
  lines.push(perMinute.map((n, m) => `min ${m + 1}: ${n}`).join(' · '));

  const rows = memoryRows(o.memory, o.windows, o.endedAt);
  lines.push('', `## Memory (RSS, MB: each process's longest life between two kills, a minute after it began and at its end)`, '', '| process | lived (min) | start | end | peak |', '|---|---:|---:|---:|---:|');
  for (const m of rows) lines.push(`| ${m.process} | ${(m.livedMs / 60_000).toFixed(1)} | ${m.startMb.toFixed(0)} | ${m.endMb.toFixed(0)} | ${m.peakMb.toFixed(0)} |`);
  const flat = rows.length > 0 && rows.every((m) => m.endMb <= m.startMb * 1.25 + 20);
  verdicts.push(['memory flat (each process ends its longest life within 1.25× + 20 MB of its size a minute in)', flat]);

  lines.push('', '## Verdict', '');
  for (const [what, met] of verdicts) lines.push(`- ${what}: ${met ? 'met' : '**NOT met**'}`);
  return { text: lines.join('\n'), met: verdicts.every(([, met]) => met) };
}
