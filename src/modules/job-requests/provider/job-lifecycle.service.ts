import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../../platform/context/request-context';
import { UnitOfWork } from '../../../platform/database/unit-of-work';
import { InvalidStateError } from '../../../platform/errors/domain-error';
import {
  answerInvite,
  assertCompletedTasks,
  coordinatesOf,
  defaultProviderName,
  everyProviderDeclined,
  invitedProvider,
  Position,
  providerIdOf,
} from '../job-changes.rules';
import { JobRequestStore } from '../job-request-store.service';
import { JobRequestEntity } from '../job-request.entity';
import { CompletedJobResponse, JobRequestResponse } from '../job-request.response';
import { distanceFromProperty, StoredProblem, taskIdsOf, taskResultsOf } from '../job-snapshot.rules';
import { nextStatus } from '../job-status.rules';

export interface Completion extends Position {
  completedTaskIds?: string[];
  verificationPictureCount?: number;
  problems?: Array<Omit<StoredProblem, 'reportedAt' | 'description'> & { description?: string | null }>;
}

/**
 * The provider side of the state machine (spec 3.2): acceptance, declines, start, completion,
 * cancellation by the cleaner and the answer to changes. In production these arrive from the
 * providers' apps; here the test helpers drive them. Each is one transaction on the locked job,
 * asks the status table first, and writes its jobRequest.* event with the rebuilt snapshot.
 */
@Injectable()
export class JobLifecycleService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: JobRequestStore,
  ) {}

  /** An invited provider accepts: 1 → 2, and becomes the job's cleaner. */
  accept(ctx: RequestContext, jobRequestId: string, email: string, name?: string): Promise<JobRequestResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      const status = nextStatus(job.id, job.status, 'accept');
      const invite = invitedProvider(job, email);
      if (invite.answer === 'declined') {
        throw new InvalidStateError(`${invite.email} has declined job request ${job.id} and can no longer accept it`, {
          email: invite.email,
        });
      }
      return this.store.save(
        tx,
        {
          ...job,
          status,
          serviceProviders: answerInvite(job.serviceProviders, invite.email, 'accepted'),
          cleanerId: providerIdOf(ctx.accountId, invite.email),
          cleanerEmail: invite.email,
          cleanerName: name ?? defaultProviderName(invite.email),
        },
        ['jobRequest.accepted'],
      );
    });
  }

  /** An invited provider declines; the last one to do so (every invited provider has declined) moves the job 1 → 4. */
  decline(ctx: RequestContext, jobRequestId: string, email: string): Promise<JobRequestResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      nextStatus(job.id, job.status, 'decline');
      const invite = invitedProvider(job, email);
      if (invite.answer === 'declined') {
        throw new InvalidStateError(`${invite.email} has already declined job request ${job.id}`, { email: invite.email });
      }
      const serviceProviders = answerInvite(job.serviceProviders, invite.email, 'declined');
      const status = nextStatus(job.id, job.status, everyProviderDeclined(serviceProviders) ? 'declineLast' : 'decline');
      return this.store.save(tx, { ...job, status, serviceProviders }, ['jobRequest.declined']);
    });
  }

  /** The cleaner starts: 2 → 5, actualStartTime now, the distance from the property when a position is sent. */
  start(ctx: RequestContext, jobRequestId: string, position: Position): Promise<JobRequestResponse> {
    const at = coordinatesOf(position);
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      const status = nextStatus(job.id, job.status, 'start');
      return this.store.save(
        tx,
        { ...job, status, actualStartTime: new Date(), startDistanceMeters: distanceFromProperty(propertyPoint(job), at) },
        ['jobRequest.started'],
      );
    });
  }

  /**
   * The cleaner completes: 5 → 7, actualEndTime now, the verification counts and problems, the
   * distance from the property. completedTaskIds must be tasks of this job (its checklist copies
   * and one-off tasks), each once. jobRequest.completed reports every task by taskId.
   */
  complete(ctx: RequestContext, jobRequestId: string, completion: Completion): Promise<JobRequestResponse> {
    const at = coordinatesOf(completion);
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      const status = nextStatus(job.id, job.status, 'complete');
      const completedTaskIds = completion.completedTaskIds ?? [];
      assertCompletedTasks(job.id, taskIdsOf(job.checklists, job.oneOffTasks), completedTaskIds);
      const reportedAt = new Date().toISOString();
      const next: JobRequestEntity = {
        ...job,
        status,
        actualEndTime: new Date(),
        completedTaskIds,
        verificationPictureCount: completion.verificationPictureCount ?? 0,
        problems: (completion.problems ?? []).map((problem) => ({
          severity: problem.severity,
          status: problem.status,
          step: problem.step,
          checklist: problem.checklist,
          description: problem.description ?? null,
          reportedAt,
        })),
        endDistanceMeters: distanceFromProperty(propertyPoint(job), at),
      };
      return this.store.save(tx, next, ['jobRequest.completed'], (shape, saved): CompletedJobResponse => ({
        ...shape,
        tasks: taskResultsOf(saved.checklists, saved.oneOffTasks, saved.completedTaskIds),
      }));
    });
  }

  /** The cleaner cancels an accepted job (2, or 9 while changes wait) → 8; the cleaner stays recorded. */
  cancelByCleaner(ctx: RequestContext, jobRequestId: string): Promise<JobRequestResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      const status = nextStatus(job.id, job.status, 'cancelByCleaner');
      return this.store.save(tx, { ...job, status }, ['jobRequest.canceledByCleaner']);
    });
  }

  /** The cleaner accepts the host's changes: 9 → 2. */
  acceptChanges(ctx: RequestContext, jobRequestId: string): Promise<JobRequestResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      const status = nextStatus(job.id, job.status, 'acceptChanges');
      return this.store.save(tx, { ...job, status }, ['jobRequest.accepted']);
    });
  }

  /**
   * The cleaner declines the host's changes: 9 → 1. The job is open again: the cleaner fields are
   * cleared and that provider is back to invited (they may accept the changed job later).
   */
  declineChanges(ctx: RequestContext, jobRequestId: string): Promise<JobRequestResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      const status = nextStatus(job.id, job.status, 'declineChanges');
      const serviceProviders = job.cleanerEmail ? answerInvite(job.serviceProviders, job.cleanerEmail, 'invited') : job.serviceProviders;
      return this.store.save(tx, { ...job, status, serviceProviders, cleanerId: null, cleanerEmail: null, cleanerName: null }, [
        'jobRequest.declined',
      ]);
    });
  }
}

function propertyPoint(job: JobRequestEntity) {
  return { latitude: job.propertyLatitude, longitude: job.propertyLongitude };
}
