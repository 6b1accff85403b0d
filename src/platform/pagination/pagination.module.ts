import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { CursorCodec } from './cursor';

@Global()
@Module({
  providers: [{ provide: CursorCodec, inject: [APP_CONFIG], useFactory: (config: AppConfig) => new CursorCodec(config.cursorSecret) }],
  exports: [CursorCodec],
})
export class PaginationModule {}
