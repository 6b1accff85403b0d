import { declareModule } from '../../platform/modules/module-declaration';
import { HEALTH_SHAPE } from './health.service';

export const HEALTH = declareModule({
  shapes: [HEALTH_SHAPE],
  examples: { Health: { status: 'ok', version: '1.0.0', checks: { database: 'up', redis: 'up' } } },
  tags: { Health: 'Liveness of the service and its dependencies.' },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    health: typeof HEALTH;
  }
}
