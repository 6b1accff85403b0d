import { Injectable } from '@nestjs/common';
import { Tx, UnitOfWork } from '../../../platform/database/unit-of-work';
import { RequestContext } from '../../../platform/context/request-context';
import { parseDateTime } from '../../../platform/http/validators';
import { newId } from '../../../platform/ids/ids';
import { EventsService } from '../../events/events.service';
import { PropertiesService } from '../../properties/properties.service';
import {
  assembleChecklists,
  assertDistinctChecklistIds,
  checklistIdsToCopy,
  HostEditable,
  hostEditableChanged,
  inviteProviders,
  mergeOneOffTasks,
  mergeTime,
  TimeChanges,
} from '../job-changes.rules';
import { JobRequestStore } from '../job-request-store.service';
import { JobRequestEntity } from '../job-request.entity';
import { JobRequestResponse, PaymentStatusResponse, toJobRequestResponse, toPaymentStatusResponse } from '../job-request.response';
import { JobRequestsRepository } from '../job-requests.repository';
import { planTasks } from '../job-snapshot.rules';
import { JOB_STATUS, nextStatus } from '../job-status.rules';
import { JobTimeChangesDto } from './dto/job-parts.dto';
import { OneOffTasksDto } from './dto/one-off-tasks.dto';
import { PaymentStatusDto } from './dto/payment-status.dto';
import { UpdateJobRequestDto } from './dto/update-job-request.dto';
import { JobRequestsService } from './job-requests.service';
import { CHECKLIST_IDS } from '../../checklists/checklists.ids';

/**
 * The host's changes to a job (spec 4.7): PATCH, one-off tasks, cancel and payment status. Each is
 * one transaction on the locked job; the status table decides what a status allows (a finished or
 * cancelled job refuses with 409 invalidState), and a change to an accepted job moves it to 9.
 */
@Injectable()
export class JobRequestChangesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: JobRequestStore,
    private readonly repository: JobRequestsRepository,
    private readonly jobs: JobRequestsService,
    private readonly properties: PropertiesService,
    private readonly events: EventsService,
  ) {}

  /**
   * Values equal to the stored ones are no change: a PATCH that changes nothing a provider sees
   * writes no event and leaves the status as it is. Property details update the property (with
   * property.update) and are not a change of the job.
   */
  async update(ctx: RequestContext, jobRequestId: string, dto: UpdateJobRequestDto): Promise<JobRequestResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      nextStatus(job.id, job.status, 'hostChange');
      if (dto.property) await this.properties.resolveForJob(tx, { propertyId: job.propertyId }, dto.property);

      const before = editableOf(job);
      const after: HostEditable = { ...before };
      if (dto.serviceProviders)
        after.serviceProviders = inviteProviders(
          dto.serviceProviders.map((p) => p.email),
          job.serviceProviders,
        );
      if (dto.time) after.time = mergeTime(before.time, timeChangesOf(dto.time));
      if (dto.checklists) {
        const ids = dto.checklists.map((ref) => ref.checklistId);
        assertDistinctChecklistIds(ids);
        const fresh = await this.jobs.copyChecklists(tx, job.propertyId, checklistIdsToCopy(job.checklists, ids), (id) => ids.indexOf(id));
        after.checklists = assembleChecklists(job.checklists, ids, fresh);
      }
      if (dto.offeredPrice !== undefined) after.offeredPrice = dto.offeredPrice;
      if (dto.offeredPriceCurrency !== undefined) after.offeredPriceCurrency = dto.offeredPriceCurrency;
      if (dto.message !== undefined) after.message = dto.message;
      const receiveUpdates = dto.receiveUpdates === undefined ? job.receiveUpdates : dto.receiveUpdates;

      if (hostEditableChanged(before, after)) return this.applyHostChange(tx, { ...job, receiveUpdates }, after);
      // The host's own notification setting: stored, but nothing a provider sees changed (no event, no status move).
      if (receiveUpdates !== job.receiveUpdates) return this.store.save(tx, { ...job, receiveUpdates }, []);
      return toJobRequestResponse(job);
    });
  }

  /** Adds one-off tasks, or updates the job's one with the same title (docs/job-requests.md). */
  async addOneOffTasks(ctx: RequestContext, jobRequestId: string, dto: OneOffTasksDto): Promise<JobRequestResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      nextStatus(job.id, job.status, 'hostChange');
      const before = editableOf(job);
      const after = { ...before, oneOffTasks: mergeOneOffTasks(job.oneOffTasks, dto.tasks, () => newId(CHECKLIST_IDS.task)) };
      if (!hostEditableChanged(before, after)) return toJobRequestResponse(job);
      return this.applyHostChange(tx, job, after);
    });
  }

  /** Spec 3.2: a job that has not started (1, 2 or 9) → 3, with jobRequest.canceled. */
  async cancel(ctx: RequestContext, jobRequestId: string): Promise<JobRequestResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      const status = nextStatus(job.id, job.status, 'cancel');
      return this.store.save(tx, { ...job, status }, ['jobRequest.canceled']);
    });
  }

  /** Sets the payment status; the same status and description again is no change (no event). */
  async setPaymentStatus(ctx: RequestContext, jobRequestId: string, dto: PaymentStatusDto): Promise<PaymentStatusResponse> {
    return this.uow.run(ctx, async (tx) => {
      const job = await this.store.lockOwn(tx, jobRequestId);
      nextStatus(job.id, job.status, 'setPaymentStatus');
      const description = dto.description ?? null;
      if (job.paymentStatus === dto.status && job.paymentDescription === description) return toPaymentStatusResponse(job);
      const saved = await this.repository.save(tx.manager, {
        ...job,
        paymentStatus: dto.status,
        paymentDescription: description,
        paymentUpdatedAt: new Date(),
      });
      const shape = toPaymentStatusResponse(saved);
      await this.events.publish(tx, 'jobRequest.paymentStatusChanged', [shape]);
      return shape;
    });
  }

  /** Writes a host change: status by the table (2 → 9), task plan recomputed, jobRequest.updated (+ changesPending on 2 → 9). */
  private applyHostChange(tx: Tx, job: JobRequestEntity, after: HostEditable): Promise<JobRequestResponse> {
    const status = nextStatus(job.id, job.status, 'hostChange');
    const plan = planTasks(after.checklists, after.oneOffTasks);
    const next: JobRequestEntity = {
      ...job,
      status,
      serviceProviders: after.serviceProviders,
      timeType: after.time.type,
      startTime: after.time.startTime,
      endTime: after.time.endTime,
      durationInHours: after.time.durationInHours,
      durationInMinutes: after.time.durationInMinutes,
      checklistIds: after.checklists.map((copy) => copy.checklistId),
      checklists: after.checklists,
      oneOffTasks: after.oneOffTasks,
      totalTaskCount: plan.totalTaskCount,
      requiredVerificationPictureCount: plan.requiredVerificationPictureCount,
      offeredPrice: after.offeredPrice,
      offeredPriceCurrency: after.offeredPriceCurrency,
      message: after.message,
    };
    const changesPending = job.status === JOB_STATUS.accepted && status === JOB_STATUS.changesPending;
    return this.store.save(tx, next, changesPending ? ['jobRequest.updated', 'jobRequest.changesPending'] : ['jobRequest.updated']);
  }
}

function editableOf(job: JobRequestEntity): HostEditable {
  return {
    serviceProviders: job.serviceProviders,
    time: {
      type: job.timeType,
      startTime: new Date(job.startTime),
      endTime: job.endTime ? new Date(job.endTime) : null,
      durationInHours: job.durationInHours,
      durationInMinutes: job.durationInMinutes,
    },
    checklists: job.checklists,
    oneOffTasks: job.oneOffTasks,
    offeredPrice: job.offeredPrice,
    offeredPriceCurrency: job.offeredPriceCurrency,
    message: job.message,
  };
}

/** A PATCH's time fields as dates; null clears endTime or a duration. */
function timeChangesOf(dto: JobTimeChangesDto): TimeChanges {
  const changes: TimeChanges = {};
  if (dto.type !== undefined) changes.type = dto.type;
  if (dto.startTime !== undefined) changes.startTime = parseDateTime(dto.startTime) as Date;
  if (dto.endTime !== undefined) changes.endTime = dto.endTime === null ? null : (parseDateTime(dto.endTime) as Date);
  if (dto.durationInHours !== undefined) changes.durationInHours = dto.durationInHours;
  if (dto.durationInMinutes !== undefined) changes.durationInMinutes = dto.durationInMinutes;
  return changes;
}
