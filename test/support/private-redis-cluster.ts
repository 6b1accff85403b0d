import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from './private-services';
import { waitUntil } from './wait';

const run = promisify(execFile);

/**
 * A Redis Cluster of the test's own: `primaries` redis-server processes in cluster mode on free loopback
 * ports (no replicas, no persistence), their slots split evenly by `redis-cli --cluster create`. Never the
 * shared Redis on 6379.
 */
export interface PrivateRedisCluster {
  /** REDIS_CLUSTER_NODES for the app: every primary, `127.0.0.1:port,…`. */
  nodes: string;
  ports: number[];
  /** The process of the primary on `port` (to SIGSTOP / SIGCONT it). */
  processOf(port: number): ChildProcess;
  /** Kills every node (SIGKILL; SIGCONT first, a stopped process dies only once continued) and removes their files. */
  stop(): Promise<void>;
}

export async function startPrivateRedisCluster(primaries = 3): Promise<PrivateRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'pop-redis-cluster-'));
  const ports = await freePorts(primaries);
  const children = new Map<number, ChildProcess>();
  const stop = async () => {
    await Promise.all(
      [...children.values()].map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGCONT');
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const port of ports) {
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '3000',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'no',
        ],
        { stdio: 'ignore' },
      );
      children.set(port, child);
    }
    for (const port of ports)
      await waitUntil(
        () =>
          cli(port, 'ping').then(
            (out) => out === 'PONG',
            () => false,
          ),
        10_000,
        `cluster node ${port}`,
      );
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-yes'], { timeout: 30_000 });
    for (const port of ports) {
      await waitUntil(
        () =>
          cli(port, 'cluster', 'info').then(
            (out) => out.includes('cluster_state:ok'),
            () => false,
          ),
        20_000,
        `cluster node ${port} to see the cluster ok`,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes: ports.map((port) => `127.0.0.1:${port}`).join(','),
    ports,
    processOf: (port) => children.get(port)!,
    stop,
  };
}

/** One redis-cli command on a node; its output, trimmed. */
export async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-p', String(port), ...args], { timeout: 5_000 });
  return stdout.trim();
}
