import type { ConnectionOptions } from 'bullmq';
import { createRedisClient, RedisTarget } from '../redis/connection.js';

/**
 * BullMQ's connection: options for one Redis server (BullMQ opens and closes its own connections), or one cluster
 * client for a Redis Cluster (BullMQ takes cluster clients only as instances; its workers duplicate it for their
 * blocking reads). The cluster client lives as long as the process: closing it is left to process exit.
 * `maxRetriesPerRequest`: null for the service (commands wait for a reconnect), a number for a producer that must
 * fail instead (the command line).
 */
export function queueConnection(target: RedisTarget, maxRetriesPerRequest: number | null = null): ConnectionOptions {
  if (!target.redisCluster) return { url: target.redisUrl, maxRetriesPerRequest };
  // A cluster client keeps commands queued while it reconnects, whatever maxRetriesPerRequest says: one that must
  // fail gives up reconnecting after a few tries instead, which fails what it holds.
  const retryStrategy = maxRetriesPerRequest === null ? undefined : (times: number) => (times > 3 ? null : 200 * times);
  return createRedisClient(target, { maxRetriesPerRequest, retryStrategy });
}
