import { SetMetadata } from '@nestjs/common';

export const TEST_MODE_ONLY = 'testModeOnly';

/**
 * The route (or the controller's routes) answers test keys only (docs/test-mode.md), and live keys where
 * TEST_HELPERS_ENABLED=true: any other key gets the 404 of a route that does not exist, before anything
 * else reads the request (the provider-side test helpers).
 */
export const TestModeOnly = () => SetMetadata(TEST_MODE_ONLY, true);
