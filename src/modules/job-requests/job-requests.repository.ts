import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { SqlRepository } from '../../platform/database/sql-repository';
import { ACCOUNT_OWNED_COLUMNS, columns, SelectedRow, TIMESTAMP_COLUMNS } from '../../platform/database/columns';
import { returnedRows, SqlParams } from '../../platform/database/query-result';
import { JobRequestEntity } from './job-request.entity';
import type { JobRequestView } from './job-request.response';
import type { JobStatus } from './job-status.rules';

/** Entity field → column, in table order. */
const JOB_COLUMNS = columns<JobRequestEntity>(
  {
    ...ACCOUNT_OWNED_COLUMNS,
    status: 'status',
    propertyId: 'property_id',
    propertyTitle: 'property_title',
    propertyAddress: 'property_address',
    propertyCountryCode: 'property_country_code',
    propertyLatitude: 'property_latitude',
    propertyLongitude: 'property_longitude',
    timeType: 'time_type',
    startTime: 'scheduled_start_time',
    endTime: 'end_time',
    durationInHours: 'duration_hours',
    durationInMinutes: 'duration_minutes',
    serviceProviders: 'service_providers',
    checklistIds: 'checklist_ids',
    checklists: 'checklists',
    oneOffTasks: 'one_off_tasks',
    totalTaskCount: 'total_task_count',
    requiredVerificationPictureCount: 'required_picture_count',
    offeredPrice: 'offered_price',
    offeredPriceCurrency: 'offered_price_currency',
    message: 'message',
    sourceBookingId: 'source_booking_id',
    partnerBookingId: 'partner_booking_id',
    receiveUpdates: 'receive_updates',
    cleanerId: 'cleaner_id',
    cleanerEmail: 'cleaner_email',
    cleanerName: 'cleaner_name',
    actualStartTime: 'actual_start_time',
    actualEndTime: 'actual_end_time',
    startDistanceMeters: 'start_distance_meters',
    endDistanceMeters: 'end_distance_meters',
    completedTaskIds: 'completed_task_ids',
    verificationPictureCount: 'verification_picture_count',
    problems: 'problems',
    paymentStatus: 'payment_status',
    paymentDescription: 'payment_description',
    paymentUpdatedAt: 'payment_updated_at',
    ...TIMESTAMP_COLUMNS,
  },
  JobRequestEntity,
);

type Field = keyof JobRequestEntity;
const FIELDS = JOB_COLUMNS.fields;
const JSONB: ReadonlySet<Field> = new Set<Field>(['serviceProviders', 'checklists', 'oneOffTasks', 'problems']);
/** What the read shape needs: the copies and the invitations stay in the table. */
const VIEW_COLUMNS = JOB_COLUMNS.pick(
  FIELDS.filter((f): f is keyof JobRequestView => f !== 'checklists' && f !== 'oneOffTasks' && f !== 'serviceProviders'),
);
/** Set by the database on insert; never written by an update (updated_at is set to now()). */
const WRITABLE = FIELDS.filter((f) => f !== 'id' && f !== 'accountId' && f !== 'createdAt' && f !== 'updatedAt');

const columnList = (fields: readonly Field[]) => fields.map((f) => JOB_COLUMNS.column(f)).join(', ');

const toValue = (job: Partial<JobRequestEntity>, field: Field): unknown => (JSONB.has(field) ? JSON.stringify(job[field]) : job[field]);

export interface JobListFilter {
  from: Date;
  to: Date;
  status?: JobStatus;
  /** The last row of the previous page: (scheduledStartTime, id). */
  after?: { startTime: string; id: string };
}

/** Job request queries in plain SQL; every one is scoped by account. */
@Injectable()
export class JobRequestsRepository extends SqlRepository {
  /** One statement for the whole job, its checklist copies included (jsonb), whatever their size. */
  async insert(manager: EntityManager, job: Omit<JobRequestEntity, 'createdAt' | 'updatedAt'>): Promise<JobRequestEntity> {
    const fields = FIELDS.filter((f) => f !== 'createdAt' && f !== 'updatedAt');
    const [row] = await manager.query(
      `INSERT INTO job_requests (${columnList(fields)}) VALUES (${fields.map((f, i) => `$${i + 1}${JSONB.has(f) ? '::jsonb' : ''}`).join(', ')})
       RETURNING created_at, updated_at`,
      fields.map((f) => toValue(job, f)),
    );
    return Object.assign(new JobRequestEntity(), job, { createdAt: row.created_at, updatedAt: row.updated_at });
  }

  /** The whole job, locked FOR UPDATE for the rest of the transaction (every change starts here). */
  async lock(manager: EntityManager, accountId: string, id: string): Promise<JobRequestEntity | undefined> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${JOB_COLUMNS.selectList()} FROM job_requests WHERE account_id = $1 AND id = $2 FOR UPDATE`,
      [accountId, id],
    );
    return rows[0] ? JOB_COLUMNS.toEntity(rows[0]) : undefined;
  }

  /** The columns of the read shape, for GET (plain read). */
  async findView(manager: EntityManager, accountId: string, id: string): Promise<JobRequestView | undefined> {
    const rows: SelectedRow[] = await manager.query(
      `SELECT ${VIEW_COLUMNS.selectList()} FROM job_requests WHERE account_id = $1 AND id = $2`,
      [accountId, id],
    );
    return rows[0] ? VIEW_COLUMNS.toEntity(rows[0]) : undefined;
  }

  /** Whether the account has this job (plain read, or in a transaction: jobs are never deleted). */
  async exists(manager: EntityManager, accountId: string, id: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM job_requests WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return rows.length > 0;
  }

  /** Writes every changeable column of the job; returns it with its new updatedAt. */
  async save(manager: EntityManager, job: JobRequestEntity): Promise<JobRequestEntity> {
    const result: unknown = await manager.query(
      `UPDATE job_requests SET ${WRITABLE.map((f, i) => `${JOB_COLUMNS.column(f)} = $${i + 3}${JSONB.has(f) ? '::jsonb' : ''}`).join(', ')},
              updated_at = now()
        WHERE account_id = $1 AND id = $2 RETURNING updated_at`,
      [job.accountId, job.id, ...WRITABLE.map((f) => toValue(job, f))],
    );
    return Object.assign(new JobRequestEntity(), job, { updatedAt: returnedRows<{ updated_at: Date }>(result)[0].updated_at });
  }

  /**
   * A keyset page of GET /v1/jobRequests (index job_requests_account_start_idx): scheduled start
   * inside [from, to], optionally one status, ordered by (scheduled_start_time, id); `take` is limit + 1.
   */
  async listPage(accountId: string, filter: JobListFilter, take: number): Promise<JobRequestView[]> {
    const params = new SqlParams(accountId, filter.from, filter.to, take);
    let where = '';
    if (filter.status !== undefined) where += ` AND status = ${params.add(filter.status)}`;
    if (filter.after) {
      where += ` AND (scheduled_start_time, id) > (${params.add(filter.after.startTime)}::timestamptz, ${params.add(filter.after.id)})`;
    }
    const rows: SelectedRow[] = await this.dataSource.query(
      `SELECT ${VIEW_COLUMNS.selectList()} FROM job_requests
        WHERE account_id = $1 AND scheduled_start_time >= $2 AND scheduled_start_time <= $3${where}
        ORDER BY scheduled_start_time, id LIMIT $4`,
      params.values,
    );
    return rows.map((row) => VIEW_COLUMNS.toEntity(row));
  }

  /** How many of the property's jobs are in status 1, 2, 5 or 9 (index job_requests_property_active_idx). */
  async countActiveForProperty(manager: EntityManager, accountId: string, propertyId: string): Promise<number> {
    const [row] = await manager.query(
      `SELECT count(*)::int AS n FROM job_requests WHERE account_id = $1 AND property_id = $2 AND status IN (1, 2, 5, 9)`,
      [accountId, propertyId],
    );
    return row.n;
  }
}
