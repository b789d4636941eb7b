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

/** CPU seconds so far of the given processes and their descendants, and of the PostgreSQL backends of a database. */
export function cpuSnapshot(rootPids: number[], database: string): { app: number; postgres: number } {
  const all = processes();
  const inTree = new Set(rootPids);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) if (!inTree.has(p.pid) && inTree.has(p.ppid)) grew = inTree.add(p.pid) !== undefined;
  }
  const sum = (list: ProcessInfo[]) => list.reduce((total, p) => total + p.cpuSeconds, 0);
  return {
    app: sum(all.filter((p) => inTree.has(p.pid))),
    postgres: sum(all.filter((p) => p.cmdline.startsWith('postgres: ') && p.cmdline.includes(` ${database} `))),
  };
}
