import { Injectable, Logger } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { advisoryLockKey } from './scheduling.rules';

/** What a worker may do with a task now: run it (then report through `finish`), or look again in `dueInMs`. */
export type TaskClaim = { kind: 'run'; finish(error?: unknown): Promise<void> } | { kind: 'skip'; dueInMs: number };

/**
 * Makes each run of a periodic task happen once across every worker process on the database:
 * a transaction-level advisory lock, held on a connection of its own for the whole run (released by
 * commit, rollback or a lost connection, so it never outlives its holder), and the task's last start
 * in `periodic_tasks`, so a run that another worker started within the interval is not repeated.
 * The lock transaction only reads: it never takes a transaction id, so it holds back neither vacuum
 * nor the events feed; the bookkeeping goes through short statements of their own.
 */
@Injectable()
export class PeriodicTaskLock {
  private readonly logger = new Logger(PeriodicTaskLock.name);

  constructor(private readonly dataSource: DataSource) {}

  async claim(name: string, intervalMs: number): Promise<TaskClaim> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.connect();
      await runner.startTransaction();
      const [{ locked }] = await runner.query(`SELECT pg_try_advisory_xact_lock($1, $2) AS locked`, advisoryLockKey(name));
      if (!locked) return await this.skip(runner, intervalMs);
      const [row] = await runner.query(
        `SELECT GREATEST(0, EXTRACT(EPOCH FROM last_started_at + make_interval(secs => $2::float8 / 1000) - now()) * 1000)::float8 AS due_in_ms
           FROM periodic_tasks WHERE name = $1`,
        [name, intervalMs],
      );
      if (row && row.due_in_ms > 0) return await this.skip(runner, row.due_in_ms);
      await this.dataSource.query(
        `INSERT INTO periodic_tasks (name, last_started_at) VALUES ($1, now())
         ON CONFLICT (name) DO UPDATE SET last_started_at = now()`,
        [name],
      );
      return { kind: 'run', finish: (error) => this.finish(runner, name, error) };
    } catch (error) {
      await this.close(runner);
      throw error;
    }
  }

  private async skip(runner: QueryRunner, dueInMs: number): Promise<TaskClaim> {
    await this.close(runner);
    return { kind: 'skip', dueInMs };
  }

  private async finish(runner: QueryRunner, name: string, error: unknown): Promise<void> {
    try {
      await this.dataSource.query(`UPDATE periodic_tasks SET last_finished_at = now(), last_error = $2 WHERE name = $1`, [
        name,
        error === undefined ? null : error instanceof Error ? error.message : String(error),
      ]);
    } finally {
      await this.close(runner);
    }
  }

  private async close(runner: QueryRunner): Promise<void> {
    if (runner.isTransactionActive) {
      await runner.rollbackTransaction().catch((error: Error) => this.logger.warn(`releasing a task lock: ${error.message}`));
    }
    await runner.release().catch(() => undefined);
  }
}
