import { DynamicModule, Global, Module } from '@nestjs/common';
import { DECLARATIONS, Declarations } from './module-declaration';

/** Hands the assembled module declarations (src/modules/modules.ts) to what asks for DECLARATIONS. */
@Global()
@Module({})
export class DeclarationsModule {
  static forRoot(declarations: Declarations): DynamicModule {
    return { module: DeclarationsModule, providers: [{ provide: DECLARATIONS, useValue: declarations }], exports: [DECLARATIONS] };
  }
}
