import { Body, Controller, Delete, Get, Param, Patch, Query } from '@nestjs/common';
import { PostCreate } from '../../platform/http/post-routes';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { CreatePropertyDto } from './dto/create-property.dto';
import { ListPropertiesQueryDto } from './dto/list-properties.dto';
import { UpdatePropertyDto } from './dto/update-property.dto';
import { PropertiesService } from './properties.service';
import { RouteDoc, none, ok, page } from '../../platform/openapi/route-doc';
import { PROPERTY_EXAMPLES } from './properties.declaration';
import { PROPERTY_SHAPE } from './property.response';

@Controller('v1/properties')
export class PropertiesController {
  constructor(private readonly properties: PropertiesService) {}

  @RouteDoc({
    summary: 'Create a property',
    description: 'The root resource: create it before its pictures, checklists, bookings, reminders and jobs. Emits property.create.',
    response: ok(PROPERTY_SHAPE, 'The created property.'),
    problems: [409],
    example: { body: PROPERTY_EXAMPLES.propertyBody },
  })
  @PostCreate()
  create(@Ctx() ctx: RequestContext, @Body() dto: CreatePropertyDto) {
    return this.properties.create(ctx, dto);
  }

  @RouteDoc({
    summary: 'List properties',
    description:
      'Ordered by propertyId (creation order). Extension: name keeps the properties whose name contains it (any case), sourceId the one with that sourceId (your own id).',
    response: page(PROPERTY_SHAPE, 'A page of properties.'),
    example: { query: { limit: 20 } },
  })
  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: ListPropertiesQueryDto) {
    return this.properties.list(ctx.accountId, query.cursor, query.limit, { name: query.name, sourceId: query.sourceId });
  }

  @RouteDoc({
    summary: 'Get a property',
    description: 'One property of the account (address, beds, settings, pictures) by its propertyId; another account’s is a 404.',
    response: ok(PROPERTY_SHAPE, 'The property.'),
  })
  @Get(':propertyId')
  get(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string) {
    return this.properties.get(ctx.accountId, propertyId);
  }

  @RouteDoc({
    summary: 'Update a property',
    description: 'Any subset of the create fields; location needs both coordinates. Emits property.update when something changed.',
    response: ok(PROPERTY_SHAPE, 'The updated property.'),
    example: { body: { name: 'Villa Azur (sea view)', tags: ['sea-view', 'pool'] } },
  })
  @Patch(':propertyId')
  update(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string, @Body() dto: UpdatePropertyDto) {
    return this.properties.update(ctx, propertyId, dto);
  }

  @RouteDoc({
    summary: 'Delete a property',
    description:
      'Takes its pictures, checklists, bookings and reminders with it (one event each, then property.delete). 409 while a stay is ahead or a job is open on it.',
    response: none(),
    problems: [409],
  })
  @Delete(':propertyId')
  async delete(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string): Promise<void> {
    await this.properties.delete(ctx, propertyId);
  }
}
