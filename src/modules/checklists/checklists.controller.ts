import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { ChecklistsService } from './checklists.service';
import { CreateChecklistDto } from './dto/create-checklist.dto';
import { UpdateChecklistDto } from './dto/update-checklist.dto';

@Controller('v1')
export class ChecklistsController {
  constructor(private readonly checklists: ChecklistsService) {}

  @Post('checklists')
  @HttpCode(201)
  create(@Ctx() ctx: RequestContext, @Body() dto: CreateChecklistDto) {
    return this.checklists.create(ctx, dto);
  }

  @Patch('checklists/:checklistId')
  update(@Ctx() ctx: RequestContext, @Param('checklistId') checklistId: string, @Body() dto: UpdateChecklistDto) {
    return this.checklists.update(ctx, checklistId, dto);
  }

  @Post('checklists/:checklistId/disable')
  @HttpCode(200)
  disable(@Ctx() ctx: RequestContext, @Param('checklistId') checklistId: string) {
    return this.checklists.disable(ctx, checklistId);
  }

  @Get('properties/:propertyId/checklists')
  listForProperty(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string) {
    return this.checklists.listForProperty(ctx, propertyId);
  }
}
