import { Injectable } from '@nestjs/common';
import { Tx } from '../../platform/database/unit-of-work';
import { NotFoundError } from '../../platform/errors/domain-error';
import { isIdOf } from '../../platform/ids/ids';
import type { EventCatalogue, EventName, EventsCarrying } from '../events/event-catalogue';
import { EventsService } from '../events/events.service';
import { JobRequestEntity } from './job-request.entity';
import { JobRequestResponse, toJobRequestResponse } from './job-request.response';
import { JobRequestsRepository } from './job-requests.repository';
import { JOB_REQUEST_IDS } from './job-requests.ids';

/**
 * What every change of a job does, host's or provider's: lock the account's job FOR UPDATE, and
 * write it back with its events in the same transaction, each carrying the rebuilt snapshot.
 */
@Injectable()
export class JobRequestStore {
  constructor(
    private readonly repository: JobRequestsRepository,
    private readonly events: EventsService,
  ) {}

  /** The account's job, locked for the transaction; unknown, malformed or another account's id → 404. */
  async lockOwn(tx: Tx, jobRequestId: string): Promise<JobRequestEntity> {
    const job = isIdOf(JOB_REQUEST_IDS.jobRequest, jobRequestId)
      ? await this.repository.lock(tx.manager, tx.ctx.accountId, jobRequestId)
      : undefined;
    if (!job) throw new NotFoundError('Job request', jobRequestId);
    return job;
  }

  /**
   * Saves the job and publishes `eventNames` in order, each with `[snapshot]`, or with what `resultOf`
   * makes of it for events whose results are another type (jobRequest.completed); returns the snapshot.
   */
  save(tx: Tx, job: JobRequestEntity, eventNames: Array<EventsCarrying<JobRequestResponse>>): Promise<JobRequestResponse>;
  save<N extends EventName>(
    tx: Tx,
    job: JobRequestEntity,
    eventNames: N[],
    resultOf: (shape: JobRequestResponse, saved: JobRequestEntity) => EventCatalogue[N],
  ): Promise<JobRequestResponse>;
  async save(
    tx: Tx,
    job: JobRequestEntity,
    eventNames: EventName[],
    resultOf: (shape: JobRequestResponse, saved: JobRequestEntity) => unknown = (shape) => shape,
  ): Promise<JobRequestResponse> {
    const saved = await this.repository.save(tx.manager, job);
    const shape = toJobRequestResponse(saved);
    // The overloads tie each name to its results type; here the name is any of them.
    for (const eventName of eventNames) await this.events.publish(tx, eventName, [resultOf(shape, saved) as never]);
    return shape;
  }
}
