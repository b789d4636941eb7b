// A probe of a Node process's event loop, loaded with `--import`: once a second it appends one JSON line to
// PROBE_OUT (default /tmp/probe-<pid>.jsonl) with the second's wall time, the process's CPU (ms), the loop's
// utilization, its p99 and longest delay (ms), GC time and longest GC pause (ms) and resident memory (MB).
// It tells a blocked loop (long delays, CPU near the wall time) from a starved process (a busy loop, CPU well under
// the wall time). For the API of a benchmark: BENCH_NODE_ARGS="--import ./bench/probes/loop-probe.mjs" npm run bench:fairness
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';

const out = process.env.PROBE_OUT ?? `/tmp/probe-${process.pid}.jsonl`;
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
let gcMs = 0;
let gcMax = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcMs += entry.duration;
    gcMax = Math.max(gcMax, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

let cpu = process.cpuUsage();
let last = performance.now();
let utilization = performance.eventLoopUtilization();
setInterval(() => {
  const now = performance.now();
  const used = process.cpuUsage(cpu);
  const loop = performance.eventLoopUtilization(utilization);
  cpu = process.cpuUsage();
  utilization = performance.eventLoopUtilization();
  const line = {
    at: Date.now(),
    wallMs: Math.round(now - last),
    cpuMs: Math.round((used.user + used.system) / 1000),
    utilization: Number(loop.utilization.toFixed(2)),
    delayP99Ms: Math.round(delay.percentile(99) / 1e6),
    delayMaxMs: Math.round(delay.max / 1e6),
    gcMs: Math.round(gcMs),
    gcMaxMs: Math.round(gcMax),
    rssMb: Math.round(process.memoryUsage.rss() / 1e6),
  };
  appendFileSync(out, `${JSON.stringify(line)}\n`);
  delay.reset();
  gcMs = 0;
  gcMax = 0;
  last = now;
}, 1000).unref();
