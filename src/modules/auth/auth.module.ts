import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Sql } from '../../platform/database/sql';
import { AccountEntity } from './account.entity';
import { AccountsService } from './accounts.service';
import { ApiKeyEntity } from './api-key.entity';
import { AuthService } from './auth.service';

@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity, ApiKeyEntity])],
  providers: [AuthService, AccountsService, Sql],
  exports: [AuthService, AccountsService],
})
export class AuthModule {}
