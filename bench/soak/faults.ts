/**
 * The soak's faults: a schedule drawn from the seed (so a seed reruns the same faults at the same times), and the
 * runner that inflicts them on the cluster and the webhook receiver one after the other, recording when each began and
 * when the service was whole again.
 */
import type { SoakCluster } from './cluster.js';
import type { Random } from './random.js';
import type { WebhookReceiver } from './receiver.js';

export type FaultKind = 'kill_worker' | 'kill_api' | 'restart_redis' | 'terminate_connections' | 'restart_postgres' | 'receiver_down';

export interface Fault {
  kind: FaultKind;
  /** Ms from the soak's start. */
  at: number;
  /** The API or worker index (kill_api, kill_worker). */
  target?: number;
  /** How long the thing stays down before it is started again (0 for terminate_connections). */
  downMs: number;
}

export interface FaultWindow {
  fault: Fault;
  /** Epoch ms the fault was inflicted. */
  startedAt: number;
  /** Epoch ms the service was back (process ready, server up). */
  endedAt: number;
  /** What the fault did, when there is more to say (the connections terminated). */
  detail?: string;
  error?: string;
}

const KINDS: readonly FaultKind[] = ['kill_worker', 'kill_api', 'restart_redis', 'terminate_connections', 'restart_postgres', 'receiver_down'];

/** How long each kind keeps its target down, [lo, hi] ms. */
const DOWN_MS: Record<FaultKind, [number, number]> = {
  kill_worker: [2000, 5000],
  kill_api: [2000, 5000],
  restart_redis: [1000, 3000],
  terminate_connections: [0, 0],
  restart_postgres: [2000, 5000],
  receiver_down: [20_000, 40_000],
};

/**
 * What a fault takes beyond its downMs (a process starting again, PostgreSQL's crash recovery) plus a few seconds for
 * the service to recover: the room kept free after it in its slot, so faults do not overlap nor blur each other's
 * recovery.
 */
const AFTER_MS: Record<FaultKind, number> = {
  kill_worker: 12_000,
  kill_api: 12_000,
  restart_redis: 8000,
  terminate_connections: 5000,
  restart_postgres: 12_000,
  receiver_down: 2000,
};

/**
 * Each kind at least twice per 10 minutes (more in longer runs), spread over the run (not in its first 30 s nor its
 * last 60 s), never two at once; choices from the seeded random. The run is cut into rounds, each holding every kind
 * once in a shuffled order, and each fault gets a slot of its own at a random offset in it. `processes` says how many
 * API processes and workers there are to choose targets from (2 each unless told); the targets of a kind alternate, so
 * each process is hit once a kind comes twice. A pure function of the random's state and its arguments.
 */
export function faultSchedule(random: Random, durationMs: number, processes: { apis: number; workers: number } = { apis: 2, workers: 2 }): Fault[] {
  const lead = Math.min(30_000, durationMs * 0.1);
  const tail = Math.min(60_000, durationMs * 0.2);
  const rounds = Math.max(1, Math.ceil((2 * durationMs) / 600_000));
  const kinds = order(random, rounds);
  const slot = Math.max(0, durationMs - lead - tail) / kinds.length;
  const firstTarget = { kill_api: random.int(0, processes.apis - 1), kill_worker: random.int(0, processes.workers - 1) };
  const seen = new Map<FaultKind, number>();
  return kinds.map((kind, k) => {
    const round = seen.get(kind) ?? 0;
    seen.set(kind, round + 1);
    const [lo, hi] = DOWN_MS[kind];
    // A short run's slots are small: the time down shrinks to fit (never below a second).
    const downMs = hi === 0 ? 0 : Math.min(random.int(lo, hi), Math.max(1000, Math.floor(slot - AFTER_MS[kind])));
    const at = Math.round(lead + k * slot + random.int(0, Math.max(0, Math.floor(slot - downMs - AFTER_MS[kind]))));
    const fault: Fault = { kind, at, downMs };
    if (kind === 'kill_api') fault.target = (firstTarget.kill_api + round) % processes.apis;
    if (kind === 'kill_worker') fault.target = (firstTarget.kill_worker + round) % processes.workers;
    return fault;
  });
}

/** `rounds` shuffles of every kind, one after the other, no kind twice in a row across two rounds. */
function order(random: Random, rounds: number): FaultKind[] {
  const all: FaultKind[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const round = [...KINDS];
    for (let i = round.length - 1; i > 0; i -= 1) {
      const j = random.int(0, i);
      [round[i], round[j]] = [round[j]!, round[i]!];
    }
    if (all.length && all[all.length - 1] === round[0]) [round[0], round[1]] = [round[1]!, round[0]!];
    all.push(...round);
  }
  return all;
}

/**
 * Runs the schedule against the cluster and receiver; resolves with each fault's window when the last one is over, or
 * early on `signal.aborted`. Faults run one at a time: one that starts while the previous is still under way waits for
 * it (and says so). A fault under way when the signal comes is finished (what it took down is brought back up).
 */
export async function runFaults(
  schedule: Fault[],
  cluster: SoakCluster,
  receiver: WebhookReceiver,
  startedAt: number,
  log: (line: string) => void,
  signal: AbortSignal,
): Promise<FaultWindow[]> {
  const windows: FaultWindow[] = [];
  for (const [i, fault] of schedule.entries()) {
    await pause(startedAt + fault.at - Date.now(), signal);
    if (signal.aborted) break;
    const name = `fault ${i + 1}/${schedule.length} ${describeFault(fault)}`;
    const late = Date.now() - (startedAt + fault.at);
    log(`${name}: inflicted${late > 1000 ? ` (${(late / 1000).toFixed(1)} s late: the previous fault ran over)` : ''}`);
    const window: FaultWindow = { fault, startedAt: Date.now(), endedAt: 0 };
    try {
      window.detail = await inflict(fault, cluster, receiver);
    } catch (error) {
      window.error = error instanceof Error ? error.message : String(error);
    }
    window.endedAt = Date.now();
    windows.push(window);
    const took = `${((window.endedAt - window.startedAt) / 1000).toFixed(1)} s`;
    log(window.error ? `${name}: FAILED after ${took}: ${window.error}` : `${name}: back after ${took}${window.detail ? ` (${window.detail})` : ''}`);
  }
  return windows;
}

/** Does the fault and undoes it; resolves when the service's part is back. Answers what there is to say about it. */
async function inflict(fault: Fault, cluster: SoakCluster, receiver: WebhookReceiver): Promise<string | undefined> {
  switch (fault.kind) {
    case 'kill_worker':
      await cluster.killWorker(fault.target ?? 0, fault.downMs);
      return undefined;
    case 'kill_api':
      await cluster.killApi(fault.target ?? 0, fault.downMs);
      return undefined;
    case 'restart_redis':
      await cluster.restartRedis(fault.downMs);
      return undefined;
    case 'terminate_connections':
      return `${await cluster.terminateConnections()} connections terminated`;
    case 'restart_postgres':
      await cluster.restartPostgres(fault.downMs);
      return undefined;
    case 'receiver_down':
      await receiver.down();
      try {
        await new Promise((resolve) => setTimeout(resolve, fault.downMs));
      } finally {
        await receiver.up();
      }
      return undefined;
  }
}

/** e.g. `kill_worker[1] down 3.2 s at 95.0 s`. */
export function describeFault(fault: Fault): string {
  const target = fault.target === undefined ? '' : `[${fault.target}]`;
  const down = fault.downMs ? ` down ${(fault.downMs / 1000).toFixed(1)} s` : '';
  return `${fault.kind}${target}${down} at ${(fault.at / 1000).toFixed(1)} s`;
}

/** Waits `ms` (nothing when not positive), or less if the signal aborts meanwhile. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
