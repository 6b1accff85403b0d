import { declareModule } from '../../platform/modules/module-declaration';
import { CONSOLE_IDS } from './console.ids';

export const CONSOLE = declareModule({ ids: CONSOLE_IDS });

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    console: typeof CONSOLE;
  }
}
