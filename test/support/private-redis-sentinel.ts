import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from './private-redis-cluster';
import { freePorts } from './private-services';
import { waitUntil } from './wait';

export const SENTINEL_NAME = 'pop-primary';

/**
 * A Sentinel set of the test's own on free loopback ports: a primary, one replica and three sentinels
 * (quorum 2) that fail over within a few seconds (down after 1 s). Never the shared Redis on 6379.
 */
export interface PrivateRedisSentinel {
  /** REDIS_SENTINELS for the app. */
  sentinels: string;
  name: string;
  /** The port of the data node that is primary now, as the sentinels say. */
  primaryPort(): Promise<number>;
  /** The data node process on `port` (to kill or freeze it). */
  processOf(port: number): ChildProcess;
  stop(): Promise<void>;
}

export async function startPrivateRedisSentinel(): Promise<PrivateRedisSentinel> {
  const dir = mkdtempSync(join(tmpdir(), 'pop-redis-sentinel-'));
  const [primary, replica, ...sentinelPorts] = await freePorts(5);
  const children = new Map<number, ChildProcess>();
  const data = (port: number, extra: string[]) =>
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, ...extra], {
      stdio: 'ignore',
    });
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
    children.set(primary, data(primary, []));
    children.set(replica, data(replica, ['--replicaof', '127.0.0.1', String(primary)]));
    for (const port of sentinelPorts) {
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${SENTINEL_NAME} 127.0.0.1 ${primary} 2`,
          `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
          // An election that fails (split votes on a busy machine) is tried again after twice this.
          `sentinel failover-timeout ${SENTINEL_NAME} 2000`,
          `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
          '',
        ].join('\n'),
      );
      children.set(port, spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' }));
    }
    await waitUntil(
      () =>
        cli(replica, 'info', 'replication').then(
          (out) => out.includes('master_link_status:up'),
          () => false,
        ),
      15_000,
      'the replica to sync',
    );
    for (const port of sentinelPorts) {
      await waitUntil(
        () =>
          cli(port, 'sentinel', 'replicas', SENTINEL_NAME).then(
            (out) => out.includes(String(replica)),
            () => false,
          ),
        15_000,
        `sentinel ${port} to see the replica`,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    sentinels: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
    name: SENTINEL_NAME,
    primaryPort: async () => Number((await cli(sentinelPorts[0], 'sentinel', 'get-master-addr-by-name', SENTINEL_NAME)).split('\n')[1]),
    processOf: (port) => children.get(port)!,
    stop,
  };
}
