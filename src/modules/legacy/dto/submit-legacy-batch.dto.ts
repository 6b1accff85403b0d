import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsObject, IsString, Length, ValidateNested } from 'class-validator';
import { OptionalNotNull } from '../../../platform/http/validators';
import { LEGACY_ACTIONS, LEGACY_BATCH_LIMITS as L, LEGACY_ENTITIES, LegacyAction, LegacyEntity } from '../legacy.rules';

/** One record of a legacy batch. `data` and `changes` are checked by the worker with the Platform route's own DTO. */
export class LegacyRecordDto {
  @IsString()
  @Length(1, L.clientRequestIdMax)
  clientRequestId: string;

  @IsIn(LEGACY_ENTITIES)
  entity: LegacyEntity;

  @IsIn(LEGACY_ACTIONS)
  action: LegacyAction;

  @OptionalNotNull()
  @IsString()
  @Length(1, 100)
  entityId?: string;

  /** A create's Platform create body. */
  @OptionalNotNull()
  @IsObject()
  data?: Record<string, unknown>;

  /** An update's changed fields (spec 9.5), applied as the Platform PATCH body. */
  @OptionalNotNull()
  @IsObject()
  changes?: Record<string, unknown>;
}

/** POST /legacy/batch: 1 to 20 records, processed in order after the 202. */
export class SubmitLegacyBatchDto {
  @IsDefined()
  @IsArray()
  @ArrayMinSize(L.recordsMin)
  @ArrayMaxSize(L.recordsMax)
  @ValidateNested({ each: true })
  @Type(() => LegacyRecordDto)
  records: LegacyRecordDto[];
}
