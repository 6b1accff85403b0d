import { Injectable, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Tx, UnitOfWork } from '../../platform/database/unit-of-work';
import { NotFoundError } from '../../platform/errors/domain-error';
import { RequestContext } from '../../platform/context/request-context';
import { newId } from '../../platform/ids/ids';
import { Page, unpaginated } from '../../platform/pagination/page';
import { EventsService } from '../events/events.service';
import { PropertyResolver, ResolvedProperty } from '../properties/property-resolver.service';
import { ChecklistEntity } from './checklist.entity';
import { ChecklistResponse, toChecklistResponse } from './checklist.response';
import { assertTaskGroupShapes, assertUpdatable, buildSnapshots, ChecklistSnapshot, mintTaskGroups } from './checklist.rules';
import { ChecklistsRepository } from './checklists.repository';
import { CreateChecklistDto } from './dto/create-checklist.dto';
import { UpdateChecklistDto } from './dto/update-checklist.dto';
import type { EventsCarrying } from '../events/event-catalogue';
import { CHECKLIST_IDS } from './checklists.ids';

/**
 * Checklist use cases. The step structure is minted server-side (every group and
 * task gets an id) and replaced whole on update; jobs take deep copies through
 * snapshotForJob, so later edits, disabling or deletion never change a job.
 */
@Injectable()
export class ChecklistsService implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly uow: UnitOfWork,
    private readonly repository: ChecklistsRepository,
    private readonly events: EventsService,
    private readonly properties: PropertyResolver,
  ) {}

  onModuleInit(): void {
    this.properties.onDelete((tx, property) => this.deleteForProperty(tx, property));
  }

  async create(ctx: RequestContext, dto: CreateChecklistDto): Promise<ChecklistResponse> {
    assertTaskGroupShapes(dto.taskGroups);
    return this.uow.run(ctx, async (tx) => {
      const property = await this.properties.resolve(tx, { propertyId: dto.propertyId, sourcePropertyId: dto.sourcePropertyId });
      const checklist = await this.repository.insert(tx.manager, {
        id: newId(CHECKLIST_IDS.checklist),
        accountId: ctx.accountId,
        propertyId: property.propertyId,
        title: dto.title,
        description: dto.description ?? null,
        taskGroups: mintTaskGroups(dto.taskGroups),
      });
      return tx.respond(await this.publish(tx, 'checklist.create', checklist));
    });
  }

  /** An empty body changes nothing: the checklist comes back as it is and no event is written. */
  async update(ctx: RequestContext, checklistId: string, dto: UpdateChecklistDto): Promise<ChecklistResponse> {
    return this.uow.run(ctx, async (tx) => {
      const current = await this.lockOwn(tx, checklistId);
      assertUpdatable(current);
      if (dto.title === undefined && dto.description === undefined && dto.taskGroups === undefined) {
        return toChecklistResponse(current);
      }
      const updated = await this.repository.update(tx.manager, ctx.accountId, checklistId, {
        title: dto.title ?? current.title,
        description: dto.description === undefined ? current.description : dto.description,
        taskGroups: dto.taskGroups ? mintTaskGroups(dto.taskGroups) : current.taskGroups,
      });
      return this.publish(tx, 'checklist.update', updated);
    });
  }

  /** Idempotent: disabling a disabled checklist answers it unchanged (first disabledAt kept, no second event). */
  async disable(ctx: RequestContext, checklistId: string): Promise<ChecklistResponse> {
    return this.uow.run(ctx, async (tx) => {
      const current = await this.lockOwn(tx, checklistId);
      if (current.disabledAt) return toChecklistResponse(current);
      const disabled = await this.repository.disable(tx.manager, ctx.accountId, checklistId);
      return this.publish(tx, 'checklist.disable', disabled);
    });
  }

  /** Every checklist of the property, disabled ones included (flagged): the authoritative taskId map. */
  async listForProperty(ctx: RequestContext, propertyId: string): Promise<Page<ChecklistResponse>> {
    const property = await this.properties.lookup(ctx.accountId, { propertyId });
    const rows = await this.repository.listByProperty(this.dataSource.manager, ctx.accountId, property.propertyId);
    return unpaginated(rows.map(toChecklistResponse));
  }

  /**
   * For job requests (and reminders): deep copies of the named checklists of the
   * caller's account, in the order given, inside the caller's transaction. Rows are
   * held FOR SHARE until it commits, so a concurrent disable cannot slip in between.
   * Unknown, another account's or repeated ids → 400 (at `pointerOf(index)`); a
   * disabled checklist → 409. The caller decides whether propertyId must match its own.
   */
  async snapshotForJob(tx: Tx, checklistIds: string[], pointerOf?: (index: number) => string): Promise<ChecklistSnapshot[]> {
    const rows = await this.repository.findMany(tx.manager, tx.ctx.accountId, [...new Set(checklistIds)], 'share');
    return buildSnapshots(checklistIds, rows, pointerOf);
  }

  /** PropertyResolver deletion hook: runs in the property delete's transaction. */
  private async deleteForProperty(tx: Tx, property: ResolvedProperty): Promise<void> {
    const deleted = await this.repository.deleteByProperty(tx.manager, tx.ctx.accountId, property.propertyId);
    for (const checklist of deleted) await this.publish(tx, 'checklist.delete', checklist);
  }

  private async lockOwn(tx: Tx, checklistId: string): Promise<ChecklistEntity> {
    const checklist = await this.repository.findOne(tx.manager, tx.ctx.accountId, checklistId, 'update');
    if (!checklist) throw new NotFoundError('Checklist', checklistId);
    return checklist;
  }

  private async publish(tx: Tx, eventName: EventsCarrying<ChecklistResponse>, checklist: ChecklistEntity): Promise<ChecklistResponse> {
    const shape = toChecklistResponse(checklist);
    await this.events.publish(tx, eventName, [shape]);
    return shape;
  }
}
