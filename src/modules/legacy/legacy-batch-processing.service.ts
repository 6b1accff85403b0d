import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { RequestContext } from '../../platform/context/request-context';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { DomainError, FieldIssue } from '../../platform/errors/domain-error';
import { EventsService } from '../events/events.service';
import { LegacyBatchesRepository, LegacyBatchRow, LegacyRecordRow } from './legacy-batches.repository';
import { LegacyRecordRunner } from './legacy-record-runner';
import { failureErrors, isRetired, LegacyRecordFailure, resultIdOf } from './legacy.rules';

export const LEGACY_VALIDATION_ERROR_EVENT = 'legacy.validationError';

/** A run holds the batch this long unless renewed (every LEASE_RENEW_MS, and after each record): a dead worker's batch is free again soon after. */
const LEASE_MS = 10_000;
const LEASE_RENEW_MS = 3_000;
/** After a run stopped by an unexpected failure (database down, a bug), the batch waits this long before the next run. */
const RETRY_AFTER_MS = 5_000;
/** Runs after which a record that keeps failing unexpectedly is failed (code internal) so the batch can go on. */
const MAX_RUNS = 5;
/** Batches one sweep run processes, and how old a batch must be before the sweep takes it (its queue job goes first). */
const SWEEP_BATCHES = 20;
const SWEEP_GRACE_MS = 2_000;

/** The record's outcome row could not be written: another run recorded it first, so this transaction must not commit. */
class AlreadyProcessed extends Error {}

/**
 * Applies a legacy batch's records in order (worker side). Each record runs through the Platform
 * route's DTO and service (LegacyRecordRunner) in that service's own transaction, with its usual
 * events, and the record's outcome is written at the end of the same transaction (RequestContext
 * beforeCommit), guarded by the record still being pending: a record is applied at most once however
 * many runs race or die, and a killed run's batch resumes at its first pending record. A record that
 * fails is recorded with its legacy.validationError event in one transaction. From the sunset,
 * pending records fail with code legacyApiRetired.
 */
@Injectable()
export class LegacyBatchProcessingService {
  private readonly logger = new Logger(LegacyBatchProcessingService.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: LegacyBatchesRepository,
    private readonly runner: LegacyRecordRunner,
    private readonly uow: UnitOfWork,
    private readonly events: EventsService,
  ) {}

  /** One run over a batch: nothing when it is completed or another run holds it. Returns whether it is completed now. */
  async process(batchId: string): Promise<boolean> {
    const batch = await this.repository.lease(batchId, LEASE_MS);
    if (!batch) return false;
    const renewal = setInterval(() => {
      this.repository.renewLease(batchId, LEASE_MS).catch((error: Error) => this.logger.warn(`renewing ${batchId}: ${error.message}`));
    }, LEASE_RENEW_MS);
    renewal.unref();
    let retryInMs = 0;
    try {
      for (const record of await this.repository.records(batch.accountId, batch.id, true)) {
        await this.processRecord(batch, record);
      }
    } catch (error) {
      retryInMs = RETRY_AFTER_MS;
      this.logger.warn(
        `legacy batch ${batchId} stopped (run ${batch.runs}; tried again in ${RETRY_AFTER_MS} ms): ${(error as Error).message}`,
      );
    } finally {
      clearInterval(renewal);
    }
    return this.repository.endRun(batchId, retryInMs);
  }

  /** Batches left unprocessed (their job lost, their worker killed), oldest first; past the sunset this is what fails them. */
  async sweep(signal?: AbortSignal): Promise<number> {
    let completed = 0;
    for (const id of await this.repository.due(SWEEP_GRACE_MS, SWEEP_BATCHES)) {
      if (signal?.aborted) break;
      if (await this.process(id)) completed++;
    }
    return completed;
  }

  private async processRecord(batch: LegacyBatchRow, record: LegacyRecordRow): Promise<void> {
    const { sunsetAt } = this.config.legacy;
    if (isRetired(new Date(), sunsetAt)) {
      const detail = `The legacy API was shut down on ${sunsetAt.toISOString()} before this record was processed; send it to the Platform API`;
      return this.fail(batch, record, 'legacyApiRetired', [{ pointer: '#', detail }]);
    }
    const ctx: RequestContext = {
      ...this.contextOf(batch, record),
      beforeCommit: async (manager, result) => {
        const resultId = resultIdOf(record.entity, result, record.entityId ?? undefined);
        if (!(await this.repository.markSucceeded(manager, record, resultId))) throw new AlreadyProcessed();
      },
    };
    try {
      await this.runner.run(ctx, record);
    } catch (error) {
      if (error instanceof AlreadyProcessed) return;
      if (error instanceof DomainError && error.kind !== 'unavailable') return this.fail(batch, record, error.code, failureErrors(error));
      if (batch.runs < MAX_RUNS) throw error;
      this.logger.error(`legacy record ${batch.id}#${record.position} failed ${batch.runs} runs: ${(error as Error).stack ?? error}`);
      return this.fail(batch, record, 'internal', [
        { pointer: '#', detail: 'The record could not be processed; the failure has been logged' },
      ]);
    }
  }

  /** The record's failure and its legacy.validationError event, in one transaction (nothing when another run recorded the record first). */
  private async fail(batch: LegacyBatchRow, record: LegacyRecordRow, code: string, errors: FieldIssue[]): Promise<void> {
    const failure: LegacyRecordFailure = {
      clientRequestId: record.clientRequestId,
      entity: record.entity,
      action: record.action,
      code,
      errors,
    };
    await this.uow.run(this.contextOf(batch, record), async (tx) => {
      if (!(await this.repository.markFailed(tx.manager, record, code, errors))) return;
      await this.events.publish(tx, LEGACY_VALIDATION_ERROR_EVENT, [failure]);
    });
  }

  /** Events of a record carry the batch request's id (apiRequestId) and the record's clientRequestId, as legacy payloads did. */
  private contextOf(batch: LegacyBatchRow, record: LegacyRecordRow): RequestContext {
    return { accountId: batch.accountId, requestId: batch.requestId, clientRequestId: record.clientRequestId };
  }
}
