import { IsOptionalText } from '../../../platform/http/validators';
import { ListQueryDto } from '../../../platform/pagination/list-query.dto';

/**
 * GET /v1/properties?[name=][&sourceId=][&cursor=][&limit=]. The filters are an extension of the spec
 * (docs/properties.md, "Finding a property"): what an assistant or integration needs to find one property.
 */
export class ListPropertiesQueryDto extends ListQueryDto {
  /** Part of the name, any case. */
  @IsOptionalText(100)
  name?: string;

  /** The client's own id, exactly. */
  @IsOptionalText(100)
  sourceId?: string;
}
