import { declareModule } from '../../platform/modules/module-declaration';
import { AUTH_IDS } from './auth.ids';

export const AUTH_EXAMPLE_IDS = { accountId: 'acct_01JDZK3A1B2C3D4E5F6G7H8J9K' };

export const AUTH = declareModule({ ids: AUTH_IDS, exampleIds: AUTH_EXAMPLE_IDS });

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    auth: typeof AUTH;
  }
}
