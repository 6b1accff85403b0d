import { IsBoolean, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { IsListOf, OptionalNotNull } from '../../../platform/http/validators';
import { CHECKLIST_LIMITS as L } from '../checklist.rules';
import { IsTaskList, TaskDto } from './create-checklist.dto';

/**
 * An update-time group (spec 4.4): tasks are required, and sourceTaskGroupId /
 * sourcePictureUrl are not fields here, so sending them is an objectStrict 400.
 */
export class UpdateTaskGroupDto {
  @IsString()
  @Length(1, L.groupTitleMax)
  title: string;

  @IsOptional()
  @IsBoolean()
  verificationRequired?: boolean | null;

  @IsTaskList()
  tasks: TaskDto[];
}

/** PATCH /v1/checklists/{id}: any subset; taskGroups replaces the whole structure and re-mints every id. */
export class UpdateChecklistDto {
  @OptionalNotNull()
  @IsString()
  @Length(1, L.titleMax)
  title?: string;

  /** null clears the description. */
  @IsOptional()
  @IsString()
  @MaxLength(L.descriptionMax)
  description?: string | null;

  @OptionalNotNull()
  @IsListOf(() => UpdateTaskGroupDto, L.taskGroupsMax, 1)
  taskGroups?: UpdateTaskGroupDto[];
}
