import { SetMetadata } from '@nestjs/common';

export const BEARER_KEY_ACCEPTED = 'bearerKeyAccepted';

/**
 * The route also takes the key as `Authorization: Bearer <key>` (what MCP clients send), besides
 * x-api-key. Only the MCP endpoint: the REST routes keep the spec's one header (spec 5.1).
 */
export const BearerKeyAccepted = () => SetMetadata(BEARER_KEY_ACCEPTED, true);
