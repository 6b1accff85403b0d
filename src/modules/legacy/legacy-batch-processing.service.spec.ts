import { Logger } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { NotFoundError, ValidationError } from '../../platform/errors/domain-error';
import { RequestContext } from '../../platform/context/request-context';
import { UnitOfWork } from '../../platform/database/unit-of-work';
import { EventsService } from '../events/events.service';
import { LegacyBatchProcessingService } from './legacy-batch-processing.service';
import { LegacyBatchesRepository, LegacyBatchRow, LegacyRecordRow } from './legacy-batches.repository';
import { LegacyRecordRunner } from './legacy-record-runner';

/** The processing service's branches, with the repository, runner, unit of work and event log faked. */
describe('LegacyBatchProcessingService', () => {
  // The service logs stopped runs and internal failures: expected here.
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  const batch: LegacyBatchRow = {
    id: 'lbat_1',
    accountId: 'acct_1',
    requestId: 'req-1',
    recordCount: 3,
    runs: 1,
    createdAt: new Date(),
    completedAt: null,
  };
  const record = (position: number): LegacyRecordRow => ({
    batchId: 'lbat_1',
    position,
    accountId: 'acct_1',
    clientRequestId: `c-${position}`,
    entity: 'property',
    action: 'update',
    entityId: `prop_${position}`,
    body: { name: 'X' },
    status: 'pending',
    resultId: null,
    errorCode: null,
    errors: null,
    processedAt: null,
  });

  type Behaviour = 'ok' | 'taken' | Error;

  function setup(behaviours: Behaviour[], options: { runs?: number; sunsetAt?: Date } = {}) {
    const succeeded: number[] = [];
    const failed: Array<{ position: number; code: string; errors: unknown }> = [];
    const published: Array<{ name: string; results: unknown[]; ctx: RequestContext }> = [];
    const contexts: RequestContext[] = [];
    const ended: number[] = [];
    const repository = {
      lease: async () => ({ ...batch, runs: options.runs ?? 1 }),
      renewLease: async () => undefined,
      records: async () => behaviours.map((_, i) => record(i)),
      markSucceeded: async (_m: unknown, r: LegacyRecordRow) => {
        if (behaviours[r.position] === 'taken') return false;
        succeeded.push(r.position);
        return true;
      },
      markFailed: async (_m: unknown, r: LegacyRecordRow, code: string, errors: unknown) => {
        failed.push({ position: r.position, code, errors });
        return true;
      },
      endRun: async (_id: string, retryInMs: number) => (ended.push(retryInMs), retryInMs === 0),
    } as unknown as LegacyBatchesRepository;
    const runner = {
      run: async (ctx: RequestContext, r: LegacyRecordRow) => {
        contexts.push(ctx);
        const behaviour = behaviours[r.position];
        if (behaviour instanceof Error) throw behaviour;
        await ctx.beforeCommit!({} as never, { propertyId: r.entityId });
      },
    } as unknown as LegacyRecordRunner;
    const uow = {
      run: async (ctx: RequestContext, work: (tx: unknown) => Promise<unknown>) => work({ manager: {}, ctx, afterCommit: () => undefined }),
    } as unknown as UnitOfWork;
    const events = {
      publish: async (tx: { ctx: RequestContext }, name: string, results: unknown[]) => published.push({ name, results, ctx: tx.ctx }),
    } as unknown as EventsService;
    const config = { legacy: { sunsetAt: options.sunsetAt ?? new Date('2999-01-01T00:00:00Z') } } as AppConfig;
    const service = new LegacyBatchProcessingService(config, repository, runner, uow, events);
    return { service, succeeded, failed, published, contexts, ended };
  }

  it('applies the records in order, each with the batch request id and its own clientRequestId, and completes the batch', async () => {
    const s = setup(['ok', 'ok', 'ok']);
    expect(await s.service.process('lbat_1')).toBe(true);
    expect(s.succeeded).toEqual([0, 1, 2]);
    expect(s.contexts.map((ctx) => [ctx.requestId, ctx.clientRequestId])).toEqual([
      ['req-1', 'c-0'],
      ['req-1', 'c-1'],
      ['req-1', 'c-2'],
    ]);
    expect(s.ended).toEqual([0]);
  });

  it('records a domain error as the failure with its legacy.validationError, and goes on', async () => {
    const invalid = new ValidationError('Invalid', [{ pointer: '#/name', detail: 'name is too short' }]);
    const s = setup(['ok', invalid, new NotFoundError('Property', 'prop_2')]);
    await s.service.process('lbat_1');
    expect(s.succeeded).toEqual([0]);
    expect(s.failed).toEqual([
      { position: 1, code: 'validationFailed', errors: [{ pointer: '#/name', detail: 'name is too short' }] },
      { position: 2, code: 'notFound', errors: [{ pointer: '#', detail: 'Property prop_2 was not found' }] },
    ]);
    expect(s.published.map((p) => [p.name, p.ctx.clientRequestId, p.results])).toEqual([
      [
        'legacy.validationError',
        'c-1',
        [{ clientRequestId: 'c-1', entity: 'property', action: 'update', code: 'validationFailed', errors: s.failed[0].errors }],
      ],
      [
        'legacy.validationError',
        'c-2',
        [{ clientRequestId: 'c-2', entity: 'property', action: 'update', code: 'notFound', errors: s.failed[1].errors }],
      ],
    ]);
  });

  it('skips, without a failure, a record another run recorded first (its transaction is rolled back)', async () => {
    const s = setup(['ok', 'taken', 'ok']);
    await s.service.process('lbat_1');
    expect(s.succeeded).toEqual([0, 2]);
    expect(s.failed).toEqual([]);
  });

  it('stops the run at an unexpected failure, keeping the order, and leaves the batch for a later run', async () => {
    const s = setup(['ok', new Error('connection terminated'), 'ok']);
    expect(await s.service.process('lbat_1')).toBe(false);
    expect(s.succeeded).toEqual([0]);
    expect(s.failed).toEqual([]);
    expect(s.ended).toEqual([5000]);
  });

  it('fails a record that keeps failing unexpectedly once the batch has had its runs (code internal)', async () => {
    const s = setup(['ok', new Error('a bug'), 'ok'], { runs: 5 });
    await s.service.process('lbat_1');
    expect(s.succeeded).toEqual([0, 2]);
    expect(s.failed).toEqual([{ position: 1, code: 'internal', errors: [expect.objectContaining({ pointer: '#' })] }]);
  });

  it('past the sunset, fails every pending record with code legacyApiRetired without running it', async () => {
    const s = setup(['ok', 'ok'], { sunsetAt: new Date(Date.now() - 1000) });
    await s.service.process('lbat_1');
    expect(s.contexts).toEqual([]);
    expect(s.failed.map((f) => [f.position, f.code])).toEqual([
      [0, 'legacyApiRetired'],
      [1, 'legacyApiRetired'],
    ]);
  });
});
