import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { Tx } from '../../platform/database/unit-of-work';
import { FieldIssue, NotFoundError, ValidationError } from '../../platform/errors/domain-error';

/** How a dependent request names its property (spec convention 9): exactly one of the two. */
export interface PropertyReference {
  propertyId?: string;
  sourcePropertyId?: string;
}

export interface ResolvedProperty {
  propertyId: string;
  sourceId: string;
}

/** What resolve and lookup answer: the property and the write-only settings its dependents act on. */
export interface ResolvedPropertyWithSettings extends ResolvedProperty {
  /** details.disableRemindersAutomation (spec 2.1): bookings create no automatic reminder when true. */
  disableRemindersAutomation: boolean;
  /** The property's IANA time zone (calendar feeds place date-only stays in it). */
  timeZone: string;
}

/** What a dependent module does to its rows when a property is deleted; throw a DomainError to refuse. */
export type PropertyDeletionHook = (tx: Tx, property: ResolvedProperty) => Promise<void>;

/**
 * The one way dependents (pictures, checklists, bookings, jobs) turn a request's
 * propertyId / sourcePropertyId into the account's property, and the place they
 * register what happens to their rows when the property goes away.
 */
@Injectable()
export class PropertyResolver {
  private readonly deletionHooks: PropertyDeletionHook[] = [];

  constructor(private readonly dataSource: DataSource) {}

  /**
   * For the transaction that writes the dependent row. Exactly one of propertyId / sourcePropertyId
   * (neither or both → 400); unknown or another account's → 404 naming the identifier. Takes FOR KEY
   * SHARE on the row so a concurrent property delete (FOR UPDATE) waits for this transaction, and a
   * resolve that waited on a delete sees the row gone (404) instead of inserting an orphan.
   */
  async resolve(tx: Tx, ref: PropertyReference): Promise<ResolvedPropertyWithSettings> {
    return this.find(tx.manager, tx.ctx.accountId, ref, { forKeyShare: true });
  }

  /**
   * The same answer as resolve, from a plain read with no transaction or lock: for pre-checks
   * (fail before a download) and GETs. Whatever writes afterwards resolves again in its transaction.
   */
  async lookup(accountId: string, ref: PropertyReference): Promise<ResolvedPropertyWithSettings> {
    return this.find(this.dataSource.manager, accountId, ref, { forKeyShare: false });
  }

  private async find(
    manager: EntityManager,
    accountId: string,
    ref: PropertyReference,
    { forKeyShare }: { forKeyShare: boolean },
  ): Promise<ResolvedPropertyWithSettings> {
    const hasId = ref.propertyId !== undefined && ref.propertyId !== null;
    const hasSource = ref.sourcePropertyId !== undefined && ref.sourcePropertyId !== null;
    if (hasId === hasSource) {
      const detail = hasId ? 'Send either propertyId or sourcePropertyId, not both' : 'One of propertyId or sourcePropertyId is required';
      const errors: FieldIssue[] = [
        { pointer: '#/propertyId', detail },
        { pointer: '#/sourcePropertyId', detail },
      ];
      throw new ValidationError(detail, errors);
    }
    const [column, field, value] = hasId
      ? (['id', 'propertyId', ref.propertyId as string] as const)
      : (['source_id', 'sourcePropertyId', ref.sourcePropertyId as string] as const);
    const rows: Array<{ id: string; source_id: string; disable_reminders_automation: boolean; time_zone: string }> = await manager.query(
      `SELECT id, source_id, disable_reminders_automation, time_zone FROM properties
        WHERE account_id = $1 AND ${column} = $2${forKeyShare ? ' FOR KEY SHARE' : ''}`,
      [accountId, value],
    );
    if (rows.length === 0) throw new NotFoundError(`Property with ${field}`, value);
    return {
      propertyId: rows[0].id,
      sourceId: rows[0].source_id,
      disableRemindersAutomation: rows[0].disable_reminders_automation,
      timeZone: rows[0].time_zone,
    };
  }

  /** Registered once at module start (onModuleInit) by each dependent module. */
  onDelete(hook: PropertyDeletionHook): void {
    this.deletionHooks.push(hook);
  }

  /** Called by PropertiesService inside the delete's transaction, after the row is locked FOR UPDATE. */
  async runDeletionHooks(tx: Tx, property: ResolvedProperty): Promise<void> {
    for (const hook of this.deletionHooks) await hook(tx, property);
  }
}
