import { SqlMigration } from '../migration-sql';

/**
 * When each periodic task (webhook sweep, retention…) last ran, across every worker process: the
 * scheduler starts a run only once the interval has passed since the last start (src/platform/scheduling).
 */
export class PeriodicTasks1763800100000 extends SqlMigration {
  name = 'PeriodicTasks1763800100000';

  protected upSql = [
    `CREATE TABLE periodic_tasks (
      name text COLLATE "C" PRIMARY KEY,
      last_started_at timestamptz NOT NULL,
      last_finished_at timestamptz,
      last_error text
    )`,
  ];

  protected downSql = [`DROP TABLE periodic_tasks`];
}
