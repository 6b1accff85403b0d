import { accountTable, SqlMigration, TIMESTAMPS } from '../migration-sql';

/**
 * Job requests (spec 2.6, 3.2) and their chat comments. A job holds its own snapshot of the
 * property and deep copies of its checklists (jsonb), so it references neither table: deleting a
 * property (allowed once none of its jobs is in status 1, 2, 5 or 9) or a checklist never changes it.
 */
export class JobRequests1764000000000 extends SqlMigration {
  name = 'JobRequests1764000000000';

  protected upSql = [
    accountTable(
      'job_requests',
      `status smallint NOT NULL CHECK (status IN (1, 2, 3, 4, 5, 7, 8, 9)),
      -- The property when the job was created: no foreign key, the job outlives it.
      property_id text COLLATE "C" NOT NULL,
      property_title text NOT NULL,
      property_address text,
      property_country_code text,
      property_latitude double precision,
      property_longitude double precision,
      -- The job time object as sent; scheduledEndTime is derived from it when read.
      time_type text NOT NULL CHECK (time_type IN ('fixed', 'flexible')),
      scheduled_start_time timestamptz NOT NULL,
      end_time timestamptz,
      duration_hours integer CHECK (duration_hours BETWEEN 1 AND 999),
      duration_minutes integer CHECK (duration_minutes BETWEEN 1 AND 999),
      -- [{email, answer: invited | accepted | declined}]
      service_providers jsonb NOT NULL,
      checklist_ids text[] NOT NULL,
      -- Deep copies of the checklists (ChecklistsService.snapshotForJob); read only by writes that need them.
      checklists jsonb NOT NULL,
      one_off_tasks jsonb NOT NULL,
      total_task_count integer NOT NULL,
      required_picture_count integer NOT NULL,
      offered_price double precision CHECK (offered_price >= 0),
      offered_price_currency text,
      message text,
      source_booking_id text,
      partner_booking_id text,
      receive_updates boolean,
      cleaner_id text,
      cleaner_email text,
      cleaner_name text,
      actual_start_time timestamptz,
      actual_end_time timestamptz,
      -- Distances only: the cleaner's coordinates are never stored.
      start_distance_meters integer,
      end_distance_meters integer,
      completed_task_ids text[] NOT NULL DEFAULT '{}',
      verification_picture_count integer NOT NULL DEFAULT 0,
      -- [{severity, status, step, checklist, description, reportedAt}]; description never returned.
      problems jsonb NOT NULL DEFAULT '[]',
      payment_status text CHECK (payment_status IN ('pending', 'failed', 'successful')),
      payment_description text,
      payment_updated_at timestamptz,
      ${TIMESTAMPS}`,
    ),
    // GET /v1/jobRequests: the account's jobs whose scheduled start is in the window, in (start, id) order,
    // the keyset cursor resuming inside it; status is included so ?status= filters without reading rows.
    `CREATE INDEX job_requests_account_start_idx ON job_requests (account_id, scheduled_start_time, id) INCLUDE (status)`,
    // The property deletion hook: does the property have a job in status 1, 2, 5 or 9?
    `CREATE INDEX job_requests_property_active_idx ON job_requests (account_id, property_id) WHERE status IN (1, 2, 5, 9)`,

    accountTable(
      'job_request_comments',
      `job_request_id text COLLATE "C" NOT NULL REFERENCES job_requests (id),
      author_kind text NOT NULL CHECK (author_kind IN ('host', 'provider')),
      author_email text,
      message text,
      language_code text,
      -- The uploaded image, when there is one: its copy lives in the blob store under this key.
      picture_storage_key text,
      picture_content_type text,
      picture_byte_size integer,
      ${TIMESTAMPS},
      CHECK (message IS NOT NULL OR picture_storage_key IS NOT NULL)`,
    ),
    // A job's chat in order (GET …/comments, offset paging over a small set).
    `CREATE INDEX job_request_comments_job_idx ON job_request_comments (account_id, job_request_id, id)`,
  ];

  protected downSql = [`DROP TABLE job_request_comments`, `DROP TABLE job_requests`];
}
