import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublicRoute';

/** Marks a route that needs no x-api-key (only GET /v1/health). */
export const Public = () => SetMetadata(IS_PUBLIC, true);
