import { Cluster, Redis } from 'ioredis';

/** A connection to one Redis server, or to a Redis Cluster (REDIS_CLUSTER=true) through one seed node. */
export type RedisClient = Redis | Cluster;

export interface RedisTarget {
  redisUrl: string;
  redisCluster: boolean;
}

export interface RedisClientOptions {
  lazyConnect?: boolean;
  enableOfflineQueue?: boolean;
  /** null: retry a command until the connection is back (BullMQ's blocking connections need it). */
  maxRetriesPerRequest?: number | null;
  connectTimeout?: number;
  /** Milliseconds before reconnect attempt `times`; null stops reconnecting. */
  retryStrategy?: (times: number) => number | null;
}

/**
 * The service's one way to open Redis. With REDIS_CLUSTER=true the URL names one node of the cluster (the others are
 * discovered) and its credentials and TLS (`rediss:`) apply to every node.
 */
export function createRedisClient(target: RedisTarget, options: RedisClientOptions = {}): RedisClient {
  const { retryStrategy, enableOfflineQueue, lazyConnect, ...perNode } = options;
  if (!target.redisCluster) return new Redis(target.redisUrl, options);
  const url = new URL(target.redisUrl);
  return new Cluster([{ host: url.hostname, port: Number(url.port || 6379) }], {
    lazyConnect,
    enableOfflineQueue,
    clusterRetryStrategy: retryStrategy,
    // Connect to the names the cluster gives, not to addresses resolved here: TLS checks the certificate against the
    // name (managed clusters with TLS, such as ElastiCache, need this).
    dnsLookup: (address, callback) => callback(null, address),
    redisOptions: {
      ...perNode,
      username: decodeURIComponent(url.username) || undefined,
      password: decodeURIComponent(url.password) || undefined,
      tls: url.protocol === 'rediss:' ? {} : undefined,
    },
  });
}
