// The API's first import (main.ts): OpenTelemetry must patch modules before the app loads them.
import { preload } from './preload';

preload('api');
