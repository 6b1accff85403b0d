import { randomBytes } from 'node:crypto';
import { Body, Controller, Get, Module, Param, Post, Query } from '@nestjs/common';
import { EventsModule } from '../../src/modules/events/events.module';
import { EventsService } from '../../src/modules/events/events.service';
import { UnitOfWork } from '../../src/platform/database/unit-of-work';
import { publishUnchecked } from './events';
import { DomainError } from '../../src/platform/errors/domain-error';
import { Idempotent } from '../../src/platform/http/idempotency.interceptor';
import { newId } from '../../src/platform/ids/ids';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { LimitQueryDto } from '../../src/platform/pagination/list-query.dto';
import { RequestContext } from '../../src/platform/context/request-context';
import { Ctx } from '../../src/platform/http/request-context';
import { AUTH_IDS } from '../../src/modules/auth/auth.ids';
import { PROPERTY_IDS } from '../../src/modules/properties/properties.ids';

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

export class ProbeThingDto {
  @IsString()
  @Length(1, 100)
  name: string;
}

@Controller('v1/test-probe')
export class ProbeController {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly events: EventsService,
  ) {}

  /**
   * A create use case in miniature: one transaction that publishes an event and
   * returns the read shape, behind @Idempotent(). name "fail" fails after writing;
   * name "conflict" fails with a domain error.
   */
  @Post('things')
  @Idempotent()
  async create(@Ctx() ctx: RequestContext, @Body() body: ProbeThingDto) {
    return this.uow.run(ctx, async (tx) => {
      const thing = { id: newId(PROPERTY_IDS.property), name: body.name, clientRequestId: ctx.clientRequestId };
      await publishUnchecked(this.events, tx, 'probe.create', [thing]);
      if (body.name === 'fail') throw new Error('failed after writing');
      if (body.name === 'conflict') throw new DomainError('conflict', 'conflict', 'Probe conflict');
      return tx.respond(thing);
    });
  }

  /**
   * A create whose use case runs two transactions: the first writes a draft (and returns it),
   * the second creates the thing and stores the real response.
   */
  @Post('two-step-things')
  @Idempotent()
  async createInTwoSteps(@Ctx() ctx: RequestContext, @Body() body: ProbeThingDto) {
    const draft = await this.uow.run(ctx, async (tx) => {
      const started = { step: 'draft', name: body.name };
      await publishUnchecked(this.events, tx, 'probe.draft', [started]);
      return started;
    });
    return this.uow.run(ctx, async (tx) => {
      const thing = { id: newId(PROPERTY_IDS.property), name: draft.name, step: 'created', clientRequestId: ctx.clientRequestId };
      await publishUnchecked(this.events, tx, 'probe.create', [thing]);
      return tx.respond(thing);
    });
  }

  /** A create that forgets Tx.respond: nothing is stored for its key. */
  @Post('unanswered-things')
  @Idempotent()
  async createWithoutResponding(@Ctx() ctx: RequestContext, @Body() body: ProbeThingDto) {
    return this.uow.run(ctx, async (tx) => {
      const thing = { id: newId(PROPERTY_IDS.property), name: body.name };
      await publishUnchecked(this.events, tx, 'probe.create', [thing]);
      return thing;
    });
  }

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

  /** A write naming an account that is gone, as a race with a delete leaves it: a foreign key violation no service mapped. */
  @Post('orphans')
  async createOrphan(@Ctx() ctx: RequestContext) {
    return this.uow.run(ctx, (tx) =>
      tx.manager.query(`INSERT INTO api_keys (id, account_id, key_hash, kind) VALUES ($1, 'acct_deleted_meanwhile', $2, 'platform')`, [
        newId(AUTH_IDS.apiKey),
        randomBytes(32),
      ]),
    );
  }

  /** An unexpected failure whose message must never reach the client. */
  @Get('boom')
  boom(): never {
    throw new Error('connect ECONNREFUSED 10.0.0.7:5432 password=hunter2 at /srv/app/secret.ts');
  }
}

@Module({ imports: [EventsModule], controllers: [ProbeController] })
export class ProbeModule {}
