import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { Idempotent } from '../../platform/http/idempotency.interceptor';
import { RequestContext } from '../../platform/context/request-context';
import { Ctx } from '../../platform/http/request-context';
import { ListQueryDto } from '../../platform/pagination/list-query.dto';
import { CreatePropertyDto } from './dto/create-property.dto';
import { UpdatePropertyDto } from './dto/update-property.dto';
import { PropertiesService } from './properties.service';

@Controller('v1/properties')
export class PropertiesController {
  constructor(private readonly properties: PropertiesService) {}

  @Post()
  @Idempotent()
  create(@Ctx() ctx: RequestContext, @Body() dto: CreatePropertyDto) {
    return this.properties.create(ctx, dto);
  }

  @Get()
  list(@Ctx() ctx: RequestContext, @Query() query: ListQueryDto) {
    return this.properties.list(ctx.accountId, query.cursor, query.limit);
  }

  @Get(':propertyId')
  get(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string) {
    return this.properties.get(ctx.accountId, propertyId);
  }

  @Patch(':propertyId')
  update(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string, @Body() dto: UpdatePropertyDto) {
    return this.properties.update(ctx, propertyId, dto);
  }

  @Delete(':propertyId')
  @HttpCode(204)
  async delete(@Ctx() ctx: RequestContext, @Param('propertyId') propertyId: string): Promise<void> {
    await this.properties.delete(ctx, propertyId);
  }
}
