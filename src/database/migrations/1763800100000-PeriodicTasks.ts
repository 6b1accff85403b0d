import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When each periodic task (webhook sweep, retention…) last ran, across every worker process: the
 * scheduler starts a run only once the interval has passed since the last start (src/platform/scheduling).
 */
export class PeriodicTasks1763800100000 implements MigrationInterface {
  name = 'PeriodicTasks1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE periodic_tasks (
        name text COLLATE "C" PRIMARY KEY,
        last_started_at timestamptz NOT NULL,
        last_finished_at timestamptz,
        last_error text
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE periodic_tasks`);
  }
}
