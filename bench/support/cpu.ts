/**
 * CPU time used by groups of processes, read from /proc (Linux only). Throughput on a shared machine moves with
 * whatever else runs on it; the CPU a request costs each process does much less, so benchmarks print both.
 */
import fs from 'node:fs';

const TICKS_PER_SECOND = 100;

interface ProcessInfo {
  pid: number;
  ppid: number;
  cmdline: string;
  cpuSeconds: number;
}

function processes(): ProcessInfo[] {
  if (!fs.existsSync('/proc/self/stat')) return [];
  const found: ProcessInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      found.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        cmdline: fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '),
        cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
      });
    } catch {
      // the process ended while we read it
    }
  }
  return found;
}

export interface CpuSnapshot {
  /** Per pid: the API processes (and their children). */
  api: Map<number, number>;
  /** Per pid: the PostgreSQL backends of the benchmark's database. */
  postgres: Map<number, number>;
  /** This process: the load generator (and the raw script where it runs one). */
  bench: number;
}

/** CPU seconds so far, per pid, of the given processes and their descendants, of a database's backends, and of this process. */
export function cpuSnapshot(rootPids: number[], database: string): CpuSnapshot {
  const all = processes();
  const inTree = new Set(rootPids);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) if (!inTree.has(p.pid) && inTree.has(p.ppid)) grew = inTree.add(p.pid) !== undefined;
  }
  const byPid = (list: ProcessInfo[]) => new Map(list.map((p) => [p.pid, p.cpuSeconds]));
  const own = process.cpuUsage();
  return {
    api: byPid(all.filter((p) => inTree.has(p.pid))),
    postgres: byPid(all.filter((p) => p.cmdline.startsWith('postgres: ') && p.cmdline.includes(` ${database} `))),
    bench: (own.user + own.system) / 1e6,
  };
}

/**
 * CPU seconds used between two snapshots by the processes alive at the second (a process that ended in between is
 * missed: pools close idle connections, so PostgreSQL backends come and go).
 */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of after) total += seconds - (before.get(pid) ?? 0);
  return total;
}
