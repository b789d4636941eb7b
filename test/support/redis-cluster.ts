import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster } from 'ioredis';
import { freePort } from './ports.js';

/** A throwaway Redis Cluster of three primaries on free local ports, for the specs that run the service against one. */
export interface LocalRedisCluster {
  ports: number[];
  /** A client of the cluster, for the spec's own checks. */
  client: Cluster;
  stop(): Promise<void>;
}


async function waitForPing(port: number): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG') return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer`);
}

/** Starts three `redis-server --cluster-enabled yes` and joins them with `redis-cli --cluster create`. */
export async function startRedisCluster(): Promise<LocalRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ce-redis-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const servers: ChildProcess[] = ports.map((port) =>
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`, '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    }),
  );
  const stop = async (): Promise<void> => {
    await Promise.all(
      servers.map((server) => (server.exitCode === null ? new Promise((resolve) => server.once('exit', resolve).kill('SIGKILL')) : undefined)),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) await waitForPing(port);
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
      encoding: 'utf8',
    });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    for (let i = 0; i < 100; i += 1) {
      if (spawnSync('redis-cli', ['-p', String(ports[0]), 'cluster', 'info'], { encoding: 'utf8' }).stdout.includes('cluster_state:ok')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const client = new Cluster([{ host: '127.0.0.1', port: ports[0] }]);
    return {
      ports,
      client,
      stop: async () => {
        client.disconnect();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
