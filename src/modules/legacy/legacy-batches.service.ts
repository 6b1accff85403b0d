import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { isIdOf, newId } from '../../platform/ids/ids';
import { SubmitLegacyBatchDto } from './dto/submit-legacy-batch.dto';
import { LegacyBatchAcceptedResponse, LegacyBatchResponse, toLegacyBatchResponse } from './legacy-batch.response';
import { LegacyBatchesRepository } from './legacy-batches.repository';
import { InvalidLegacyBatchError, LegacyBatchNotFoundError } from './legacy.errors';
import { batchShapeIssues } from './legacy.rules';
import { LegacyQueue } from './legacy-queue.service';
import { LEGACY_IDS } from './legacy.ids';

/**
 * The legacy batched endpoint's API side (spec 9.2): a well-formed batch is stored with its records
 * in one transaction and acknowledged; a worker applies the records later (legacy-batch-processing).
 */
@Injectable()
export class LegacyBatchesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly repository: LegacyBatchesRepository,
    private readonly queue: LegacyQueue,
  ) {}

  async submit(ctx: RequestContext, dto: SubmitLegacyBatchDto): Promise<LegacyBatchAcceptedResponse> {
    const issues = batchShapeIssues(dto.records);
    if (issues.length > 0) throw new InvalidLegacyBatchError(issues);
    const batchId = newId(LEGACY_IDS.legacyBatch);
    await this.uow.run(ctx, async (tx) => {
      await this.repository.insert(
        tx.manager,
        { id: batchId, accountId: ctx.accountId, requestId: ctx.requestId },
        dto.records.map((record) => ({ ...record, body: record.data ?? record.changes })),
      );
      tx.afterCommit(() => this.queue.enqueue(batchId));
    });
    return { batchId, accepted: dto.records.length };
  }

  async get(accountId: string, batchId: string): Promise<LegacyBatchResponse> {
    const found = isIdOf(LEGACY_IDS.legacyBatch, batchId) ? await this.repository.find(accountId, batchId) : undefined;
    if (!found) throw new LegacyBatchNotFoundError(batchId);
    return toLegacyBatchResponse(found.batch, found.records);
  }
}
