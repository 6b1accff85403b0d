// The worker's first import (worker.ts): OpenTelemetry must patch modules before the app loads them.
import { preload } from './preload';

preload('worker');
