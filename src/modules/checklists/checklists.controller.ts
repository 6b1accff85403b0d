import { Body, Controller, Get, Param, Patch, Post } from '@nestjs/common';
import { PostAction } from '../../platform/http/post-routes';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { ChecklistsService } from './checklists.service';
import { CreateChecklistDto } from './dto/create-checklist.dto';
import { UpdateChecklistDto } from './dto/update-checklist.dto';
import { RouteDoc, ok, page } from '../../platform/openapi/route-doc';
import { CHECKLIST_EXAMPLES } from './checklists.declaration';
import { CHECKLIST_SHAPE } from './checklist.response';

@Controller('v1')
export class ChecklistsController {
  constructor(private readonly checklists: ChecklistsService) {}

  @RouteDoc({
    summary: 'Create a checklist',
    description: 'Every group carries tasks or one sourcePictureUrl, never both. taskGroupId and taskId are minted by the service.',
    response: ok(CHECKLIST_SHAPE, 'The created checklist with its ids.'),
    problems: [404],
    example: { body: CHECKLIST_EXAMPLES.checklistBody },
  })
  @Post('checklists')
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateChecklistDto) {
    return this.checklists.create(ctx, dto);
  }

  @RouteDoc({
    summary: 'Update a checklist',
    description: 'taskGroups, when sent, replaces every group and re-mints every taskGroupId and taskId.',
    response: ok(CHECKLIST_SHAPE, 'The updated checklist.'),
    problems: [409],
    example: { body: { title: 'Turnover clean (summer)' } },
  })
  @Patch('checklists/:checklistId')
  update(@Ctx() ctx: RequestContext, @Param('checklistId') checklistId: string, @Body() dto: UpdateChecklistDto) {
    return this.checklists.update(ctx, checklistId, dto);
  }

  @RouteDoc({
    summary: 'Disable a checklist',
    description: 'Jobs that copied it keep their copies.',
    response: ok(CHECKLIST_SHAPE, 'The disabled checklist.'),
  })
  @PostAction('checklists/:checklistId/disable')
  disable(@Ctx() ctx: RequestContext, @Param('checklistId') checklistId: string) {
    return this.checklists.disable(ctx, checklistId);
  }

  @RouteDoc({
    summary: "List a property's checklists",
    description: 'Unpaginated (nextCursor null, hasMore false): the authoritative source of the taskId mapping.',
    response: page(CHECKLIST_SHAPE, 'Every checklist of the property.'),
  })
  @Get('properties/:propertyId/checklists')
  listForProperty(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string) {
    return this.checklists.listForProperty(ctx, propertyId);
  }
}
