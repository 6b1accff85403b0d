import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountEntity } from './account.entity';
import { AccountsService } from './accounts.service';
import { ApiKeyEntity } from './api-key.entity';
import { AuthService } from './auth.service';

@Module({
  imports: [TypeOrmModule.forFeature([AccountEntity, ApiKeyEntity])],
  providers: [AuthService, AccountsService],
  exports: [AuthService, AccountsService],
})
export class AuthModule {}
