import { DEFAULT_LIMITS, LIMIT_SETTINGS, type Limits } from './limits.js';

/** Configuration read from the environment once, validated, and typed. Nothing else reads process.env. */
export interface AppConfig {
  databaseUrl: string;
  /** Connections each process may open (PostgreSQL's max_connections bounds the sum over every process). */
  databasePoolSize: number;
  redisUrl: string;
  redisCluster: boolean;
  port: number;
  adminToken: string | null;
  queuePrefix: string;
  rateLimitPerMinute: number;
  /** Failed authentications per api key and source address per minute before that source gets 429 for the key. */
  authFailuresPerMinute: number;
  /** Secrets one API process hashes at once (scrypt); past it, authentication answers 429 without hashing. */
  authVerificationsAtOnce: number;
  /** Requests an API process serves at once (the database pool's size by default); the next wait in their organization's line. */
  apiRequestsAtOnce: number;
  /** Requests of one organization an API process serves at once while another organization is served too. */
  organizationRequestsAtOnce: number;
  /** Bytes (bodies, and 1 KiB a request) one organization's requests may hold while they wait for a turn, per API process; past it, 429. */
  organizationBytesWaiting: number;
  /** Event-loop utilization (percent of the last second) past which an API process sheds the organization asking the most; 0: never. */
  shedLoadAtLoopPercent: number;
  /** The share (percent) of an API process's recent request bytes an organization must have brought to be shed. */
  shedLoadAtSharePercent: number;
  /** Express `trust proxy` hops: 0 takes the TCP peer as the source address; n the n-th address from the right of X-Forwarded-For. */
  trustProxy: number;
  bodyLimit: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  webhookAllowPrivateNetworks: boolean;
  storageDir: string;
  apiKeyCacheSeconds: number;
  apiProcesses: number;
  workerConcurrency: number;
  /** The work a worker process takes (WORKER_QUEUES): every kind unless a deployment splits them over processes. */
  workerQueues: WorkerQueue[];
  /** Extension modules to load beside the application's own (EXTENSIONS): `file` or `file#Export`, docs/extending.md. */
  extensions: string[];
  /** How long an extension's work that may wait (an event enricher) has per request (EXTENSION_TIMEOUT_MS). */
  extensionTimeoutMs: number;
  /** The worker process's OS scheduling niceness (0 to 19): a simulations-only process yields the cores to events. */
  workerNice: number;
  sweepAfterSeconds: number;
  /** Due points credits the expiry sweeper expires per second at most (one sweeping worker at a time). */
  pointsExpiryRate: number;
  /** Customers whose due tier review the review sweeper applies per second at most (TIER_REVIEW_RATE). */
  tierReviewRate: number;
  /** Rows the erasure worker deletes or rewrites per second at most (ERASURE_RATE), so that other customers' work goes on. */
  erasureRate: number;
  /** Simulations of one organization that run at once (more wait, queued). */
  simulationsPerOrganization: number;
  /** A simulation's run stops, failed, after this long (a replay's time budget). */
  simulationMaxSeconds: number;
  /** Events that occurred longer ago leave the event log (their month's partition is dropped); null keeps every event. */
  eventRetentionDays: number | null;
  /**
   * Days a reward's after-commit effect is kept once done (REWARD_EFFECTS_RETENTION_DAYS, default 30); a dead one is kept
   * three times as long from its last attempt, to be listed and replayed. The reward effects' sweeper deletes them past it.
   */
  rewardEffectsRetentionDays: number;
  /** Contract §18's limits (limits.ts). */
  limits: Limits;
}

export class ConfigError extends Error {}

/** What a worker process may take: a queue (with its sweeper), or `points`, the points expiry sweeper. */
export const WORKER_QUEUES = ['events', 'webhooks', 'audience-jobs', 'points', 'simulations'] as const;
/** What a process may also take alone, though a kind above takes it too: `webhooks` runs the reward effects' queue. */
const WORKER_QUEUES_ALONE = ['reward-effects'] as const;
export type WorkerQueue = (typeof WORKER_QUEUES)[number] | (typeof WORKER_QUEUES_ALONE)[number];
const KNOWN_WORKER_QUEUES: readonly WorkerQueue[] = [...WORKER_QUEUES, ...WORKER_QUEUES_ALONE];

function workerQueues(env: Env): WorkerQueue[] {
  const raw = env.WORKER_QUEUES?.trim();
  if (!raw) return [...WORKER_QUEUES];
  const asked = raw.split(',').map((name) => name.trim());
  const unknown = asked.filter((name) => !(KNOWN_WORKER_QUEUES as readonly string[]).includes(name));
  if (unknown.length || !asked.length) throw new ConfigError(`WORKER_QUEUES must list some of ${KNOWN_WORKER_QUEUES.join(', ')} (comma-separated); got "${raw}"`);
  return KNOWN_WORKER_QUEUES.filter((name) => asked.includes(name));
}

/** EXTENSIONS: comma-separated `file` or `file#Export` entries (the default export when no name is given). */
function extensions(env: Env): string[] {
  const entries = (env.EXTENSIONS ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  const bad = entries.filter((entry) => !/^[^#]+(#[A-Za-z_$][\w$]*)?$/.test(entry));
  if (bad.length) throw new ConfigError(`EXTENSIONS must list files, each optionally followed by #ExportName (comma-separated); got "${bad.join(', ')}"`);
  return entries;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

function url(env: Env, name: string, fallback: string, protocols: string[]): string {
  const value = env[name] || fallback;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = /^-?\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, values: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function bodyLimit(env: Env): string {
  const raw = env.BODY_LIMIT || '1mb';
  if (!/^\d+(b|kb|mb)$/i.test(raw)) throw new ConfigError(`BODY_LIMIT must look like 512kb or 1mb, got "${raw}"`);
  return raw.toLowerCase();
}

function adminToken(env: Env): string | null {
  const raw = env.ADMIN_TOKEN;
  if (raw === undefined || raw === '') return null;
  if (raw.length < 16) throw new ConfigError('ADMIN_TOKEN must be at least 16 characters long');
  return raw;
}

function queuePrefix(env: Env, cluster: boolean): string {
  const raw = env.QUEUE_PREFIX || (cluster ? '{ce}' : 'ce');
  if (!/^[A-Za-z0-9_.{}-]{1,64}$/.test(raw)) throw new ConfigError('QUEUE_PREFIX may hold only letters, digits, _ . - { and }');
  // Redis Cluster runs a command only on keys of one slot; BullMQ's scripts touch many keys of a queue, and the
  // service's own pipelines several keys: a hash tag ({ce}) puts every key of the prefix in one slot.
  if (cluster && !/^[^{]*\{[^{}]+\}/.test(raw)) {
    throw new ConfigError(`with REDIS_CLUSTER=true, QUEUE_PREFIX must hold a hash tag such as {ce}, got "${raw}"`);
  }
  return raw;
}

function limitsOf(env: Env): Limits {
  const entries = Object.entries(LIMIT_SETTINGS).map(([name, { env: variable, max }]) => [name, integer(env, variable, DEFAULT_LIMITS[name as keyof Limits], 1, max)]);
  return Object.fromEntries(entries) as Limits;
}

export function loadConfig(env: Env): AppConfig {
  const redisCluster = boolean(env, 'REDIS_CLUSTER', false);
  const databasePoolSize = integer(env, 'DATABASE_POOL_SIZE', 20, 1, 1000);
  return {
    databaseUrl: url(env, 'DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/campaign_engine', ['postgres:', 'postgresql:']),
    databasePoolSize,
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    redisCluster,
    port: integer(env, 'PORT', 3000, 0, 65535),
    adminToken: adminToken(env),
    queuePrefix: queuePrefix(env, redisCluster),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 6000, 1, 10_000_000),
    authFailuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', 20, 1, 10_000_000),
    authVerificationsAtOnce: integer(env, 'AUTH_VERIFICATIONS_AT_ONCE', 2, 1, 64),
    apiRequestsAtOnce: integer(env, 'API_REQUESTS_AT_ONCE', databasePoolSize, 1, 10_000),
    organizationRequestsAtOnce: integer(env, 'ORGANIZATION_REQUESTS_AT_ONCE', 4, 1, 10_000),
    organizationBytesWaiting: integer(env, 'ORGANIZATION_BYTES_WAITING', 64 * 1024 * 1024, 1024, 2 ** 40),
    shedLoadAtLoopPercent: integer(env, 'SHED_LOAD_AT_LOOP_PERCENT', 90, 0, 100),
    shedLoadAtSharePercent: integer(env, 'SHED_LOAD_AT_SHARE_PERCENT', 90, 1, 100),
    trustProxy: integer(env, 'TRUST_PROXY', 0, 0, 16),
    bodyLimit: bodyLimit(env),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', LOG_LEVELS),
    webhookAllowPrivateNetworks: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    storageDir: env.STORAGE_DIR || './storage',
    apiKeyCacheSeconds: integer(env, 'API_KEY_CACHE_SECONDS', 30, 0, 3600),
    apiProcesses: integer(env, 'API_PROCESSES', 1, 1, 64),
    workerConcurrency: integer(env, 'WORKER_CONCURRENCY', 4, 1, 256),
    workerQueues: workerQueues(env),
    extensions: extensions(env),
    extensionTimeoutMs: integer(env, 'EXTENSION_TIMEOUT_MS', 200, 1, 60_000),
    workerNice: integer(env, 'WORKER_NICE', 0, 0, 19),
    sweepAfterSeconds: integer(env, 'SWEEP_AFTER_SECONDS', 30, 1, 86_400),
    pointsExpiryRate: integer(env, 'POINTS_EXPIRY_RATE', 2_000, 1, 1_000_000),
    tierReviewRate: integer(env, 'TIER_REVIEW_RATE', 2_000, 1, 1_000_000),
    erasureRate: integer(env, 'ERASURE_RATE', 20_000, 1, 1_000_000),
    simulationsPerOrganization: integer(env, 'SIMULATIONS_PER_ORGANIZATION', 2, 1, 100),
    simulationMaxSeconds: integer(env, 'SIMULATION_MAX_SECONDS', 900, 1, 86_400),
    eventRetentionDays: env.EVENT_RETENTION_DAYS ? integer(env, 'EVENT_RETENTION_DAYS', 0, 1, 36_500) : null,
    rewardEffectsRetentionDays: integer(env, 'REWARD_EFFECTS_RETENTION_DAYS', 30, 1, 36_500),
    limits: limitsOf(env),
  };
}

/** The configuration of this process, from its environment (the only place that reads process.env). */
export function configFromEnv(): AppConfig {
  return loadConfig(process.env);
}

/** A URL with its password replaced, safe for logs and error lines. */
export function redactUrl(value: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<invalid url>';
  }
}
