import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsBoolean, IsOptional, IsString, Length, MaxLength, ValidateNested } from 'class-validator';
import { allOf, IsHttpUrl, IsListOf } from '../../../platform/http/validators';
import { PropertyReferenceDto } from '../../properties/dto/property-reference.dto';
import { CHECKLIST_LIMITS as L } from '../checklist.rules';

export class TaskDto {
  @IsOptional()
  @IsString()
  @Length(L.sourceIdMin, L.sourceIdMax)
  sourceTaskId?: string | null;

  @IsString()
  @Length(L.labelMin, L.labelMax)
  label: string;
}

/**
 * A group's tasks, on create and on update: a list of 1 to tasksPerGroupMax TaskDto.
 * Whether the list may be left out is each group DTO's own rule.
 */
export function IsTaskList(): PropertyDecorator {
  return allOf(
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(L.tasksPerGroupMax),
    ValidateNested({ each: true }),
    Type(() => TaskDto),
  );
}

/** A create-time group: tasks, or a picture-only step (sourcePictureUrl); the exactly-one rule is checklist.rules'. */
export class CreateTaskGroupDto {
  @IsString()
  @Length(1, L.groupTitleMax)
  title: string;

  @IsOptional()
  @IsString()
  @Length(L.sourceIdMin, L.sourceIdMax)
  sourceTaskGroupId?: string | null;

  @IsOptional()
  @IsBoolean()
  verificationRequired?: boolean | null;

  @IsOptional()
  @IsHttpUrl()
  sourcePictureUrl?: string | null;

  @IsOptional()
  @IsTaskList()
  tasks?: TaskDto[] | null;
}

/** POST /v1/checklists (spec 2.3); propertyId / sourcePropertyId come from PropertyReferenceDto. */
export class CreateChecklistDto extends PropertyReferenceDto {
  @IsString()
  @Length(1, L.titleMax)
  title: string;

  @IsOptional()
  @IsString()
  @MaxLength(L.descriptionMax)
  description?: string | null;

  @IsListOf(() => CreateTaskGroupDto, L.taskGroupsMax, 1)
  taskGroups: CreateTaskGroupDto[];
}
