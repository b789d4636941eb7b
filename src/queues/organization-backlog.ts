import type { Queue } from 'bullmq';
import { bounded } from './queue-errors.js';

/** BullMQ's greatest priority (2^21 - 1). */
const LOWEST_PRIORITY = 2 ** 21 - 1;

/** A backlog nobody adds to for this long is forgotten (a job removed by hand leaves its count behind). */
const FORGET_SECONDS = 3_600;

/**
 * Counts the organization's queued jobs by `n` and answers the priority of the first of them and the floor below
 * which none may go: job j (from 0) gets max(first + j, floor). The floor is the greatest priority given to the
 * organization's jobs still queued, so that its jobs keep the order they were queued in.
 */
const ADD = `
local backlog = redis.call('INCRBY', KEYS[1], ARGV[1])
local floor = tonumber(redis.call('GET', KEYS[2]) or '1')
local last = math.max(backlog, floor)
redis.call('SET', KEYS[2], last, 'EX', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return { backlog - tonumber(ARGV[1]) + 1, floor }`;

/** Jobs of the organization ended: its backlog shrinks; an empty backlog starts again at priority 1. */
const DONE = `
local backlog = redis.call('DECRBY', KEYS[1], ARGV[1])
if backlog <= 0 then redis.call('DEL', KEYS[1], KEYS[2]) end
return backlog`;

/** The organization's current backlog, and the floor of its priorities. */
const PEEK = `return { tonumber(redis.call('GET', KEYS[1]) or '0'), tonumber(redis.call('GET', KEYS[2]) or '1') }`;

/**
 * Fair work between organizations on one queue: each organization's jobs are counted while they are queued or running
 * (its backlog), and a job is queued with the priority of its place in its organization's backlog. BullMQ takes the
 * lowest priority first, so the organizations' k-th jobs are taken side by side: an organization that queues ten
 * thousand jobs holds back its own, never another's first few. Within an organization the jobs keep their order (the
 * floor above). docs/decisions/0016-fair-events-queue.md.
 */
export class OrganizationBacklog {
  constructor(private readonly queue: Queue) {}

  /** Counts `n` jobs of the organization as queued; answers each one's priority. */
  async add(organizationId: number, n: number): Promise<number[]> {
    const [first, floor] = (await this.run('organizationBacklogAdd', organizationId, n, FORGET_SECONDS)) as [number, number];
    return Array.from({ length: n }, (_, j) => priority(Math.max(first + j, floor)));
  }

  /** The priority a job of the organization would get now, without counting it (a job queued again by a sweep). */
  async current(organizationId: number): Promise<number> {
    const [backlog, floor] = (await this.run('organizationBacklogPeek', organizationId)) as [number, number];
    return priority(Math.max(backlog + 1, floor));
  }

  /** Jobs counted by `add` ended (completed, or failed for the last time), or were never queued. */
  async done(organizationId: number, jobs = 1): Promise<void> {
    await this.run('organizationBacklogDone', organizationId, jobs);
  }

  /** Runs a script, waiting for Redis at most as long as adding jobs does (ADD_TIMEOUT_MS): a caller never hangs on it. */
  private run(command: keyof typeof SCRIPTS, organizationId: number, ...args: number[]): Promise<unknown> {
    return bounded(this.runScript(command, organizationId, args));
  }

  private async runScript(command: keyof typeof SCRIPTS, organizationId: number, args: number[]): Promise<unknown> {
    const client = await this.queue.backend.client;
    if (!defined.has(client)) {
      for (const [name, lua] of Object.entries(SCRIPTS)) client.defineCommand(name, { numberOfKeys: 2, lua });
      defined.add(client);
    }
    return client.runCommand(command, [this.queue.toKey(`backlog:${organizationId}`), this.queue.toKey(`backlog-floor:${organizationId}`), ...args]);
  }
}

/** The scripts, by the command name each is defined under on the queue's Redis client. */
const SCRIPTS = { organizationBacklogAdd: ADD, organizationBacklogDone: DONE, organizationBacklogPeek: PEEK };
const defined = new WeakSet<object>();

const priority = (place: number): number => Math.min(Math.max(1, place), LOWEST_PRIORITY);
