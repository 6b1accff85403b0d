import { Body, Controller, Get, Module, Param, Post, Query } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { LimitQueryDto } from '../../src/platform/pagination/list-query.dto';
import { Ctx, RequestContext } from '../../src/platform/http/request-context';

/**
 * Test-only routes that exercise the platform layer (body parsing, strict
 * validation, the problem filter) before any real module has a body route.
 * Mounted with startApp({}, [ProbeModule]); never part of the shipped app.
 */
export class ProbeTaskDto {
  @IsString()
  @Length(3, 500)
  label: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(999)
  durationInMinutes?: number;
}

export class ProbeTaskGroupDto {
  @IsString()
  name: string;

  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => ProbeTaskDto)
  tasks: ProbeTaskDto[];
}

export class ProbeBodyDto {
  @IsString()
  @Length(3, 100)
  name: string;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ProbeTaskGroupDto)
  taskGroups?: ProbeTaskGroupDto[];
}

@Controller('v1/test-probe')
export class ProbeController {
  @Post('bodies')
  echo(@Ctx() ctx: RequestContext, @Body() body: ProbeBodyDto) {
    return { accountId: ctx.accountId, body };
  }

  @Get('items')
  list(@Query() query: LimitQueryDto) {
    return { limit: query.limit };
  }

  @Get('items/:id')
  one(@Param('id') id: string) {
    return { id };
  }

  /** An unexpected failure whose message must never reach the client. */
  @Get('boom')
  boom(): never {
    throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2 at /srv/app/secret.ts');
  }
}

@Module({ controllers: [ProbeController] })
export class ProbeModule {}
