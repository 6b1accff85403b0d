/**
 * Nest's route metadata keys, which it publishes only under `@nestjs/common/...` deep paths: the one place
 * outside Nest that reads them (the OpenAPI document reading each handler's parameters and interceptors) imports
 * them from here, so a Nest upgrade that moves them is fixed in platform/ (ESLint forbids deep framework imports elsewhere).
 */
export { INTERCEPTORS_METADATA, METHOD_METADATA, MODULE_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
export { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
