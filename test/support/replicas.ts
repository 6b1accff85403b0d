import { request } from 'node:http';
import { connect } from 'node:net';
import { PrivateDatabase } from './private-services';

/** Helpers of the replicas test (test/e2e/replicas.e2e-spec.ts): a plain HTTP client and a record of periodic task runs. */

export interface Reply {
  status: number;
  body: any;
}

/**
 * One request on a connection of its own (no keep-alive agent), as a load balancer's retry sees it:
 * an API that stops refuses the connection or resets it before reading the request, so a network
 * error means the request was never handled and may be sent to another replica.
 */
export function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method,
        agent: false,
        headers: { ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            body: text && /json/.test(String(res.headers['content-type'])) ? JSON.parse(text) : text,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Whether nothing accepts connections on the port any more. */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

/**
 * Records every start of a periodic task (each claim writes `periodic_tasks.last_started_at`) in a
 * table of the test's private database, through a trigger: the app keeps one row per task, the test
 * needs every run.
 */
export async function recordPeriodicTaskRuns(db: PrivateDatabase): Promise<void> {
  await db.query(`CREATE TABLE test_periodic_task_runs (name text NOT NULL, started_at timestamptz NOT NULL)`);
  await db.query(`
    CREATE FUNCTION test_record_periodic_task_run() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO test_periodic_task_runs (name, started_at) VALUES (NEW.name, NEW.last_started_at);
      RETURN NEW;
    END $$`);
  await db.query(`
    CREATE TRIGGER test_periodic_task_runs AFTER INSERT OR UPDATE OF last_started_at ON periodic_tasks
    FOR EACH ROW EXECUTE FUNCTION test_record_periodic_task_run()`);
}

export interface TaskRuns {
  /** Starts, oldest first. */
  starts: Date[];
  /** Milliseconds between consecutive starts, computed by the database at microsecond precision. */
  gapsMs: number[];
}

/** Every recorded start per task. */
export async function periodicTaskRuns(db: PrivateDatabase): Promise<Map<string, TaskRuns>> {
  const rows = await db.query<{ name: string; started_at: Date; gap_ms: number | null }>(
    `SELECT name, started_at,
            (EXTRACT(EPOCH FROM started_at - lag(started_at) OVER (PARTITION BY name ORDER BY started_at)) * 1000)::float8 AS gap_ms
       FROM test_periodic_task_runs ORDER BY name, started_at`,
  );
  const runs = new Map<string, TaskRuns>();
  for (const row of rows) {
    const task = runs.get(row.name) ?? { starts: [], gapsMs: [] };
    task.starts.push(row.started_at);
    if (row.gap_ms !== null) task.gapsMs.push(row.gap_ms);
    runs.set(row.name, task);
  }
  return runs;
}

/** `promise`, or an error naming `what` (and the steps so far) once `ms` have passed. */
export async function within<T>(promise: Promise<T>, ms: number, what: string, steps: string[] = []): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms; steps so far: ${steps.join(', ')}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The gaps between consecutive values. */
export const gaps = (times: number[]) => times.slice(1).map((time, i) => time - times[i]);
