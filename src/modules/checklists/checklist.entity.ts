import { Column, Entity } from 'typeorm';
import { AccountOwnedTimestampedEntity } from '../../platform/database/entity-columns';

export interface StoredTask {
  taskId: string;
  label: string;
  sourceTaskId: string | null;
}

/** A task group as stored: either tasks or a picture (sourcePictureUrl), never both. */
export interface StoredTaskGroup {
  taskGroupId: string;
  title: string;
  sourceTaskGroupId: string | null;
  verificationRequired: boolean;
  sourcePictureUrl: string | null;
  tasks: StoredTask[];
}

@Entity('checklists')
export class ChecklistEntity extends AccountOwnedTimestampedEntity {
  @Column({ name: 'property_id', type: 'text' }) propertyId: string;
  @Column({ type: 'text' }) title: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ name: 'task_groups', type: 'jsonb' }) taskGroups: StoredTaskGroup[];
  @Column({ name: 'disabled_at', type: 'timestamptz', nullable: true }) disabledAt: Date | null;
}
