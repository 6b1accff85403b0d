import { SetMetadata } from '@nestjs/common';

export const LEGACY_KEY_REQUIRED = 'legacyKeyRequired';

/** Only legacy API keys may call the route (or the controller's routes): a Platform key gets 403 legacyKeyRequired. */
export const LegacyKeyRequired = () => SetMetadata(LEGACY_KEY_REQUIRED, true);
