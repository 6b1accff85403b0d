import { ConflictError } from '../../platform/errors/domain-error';

export const PROPERTY_SOURCE_ID_CONSTRAINT = 'properties_account_source_uq';
export const PICTURE_SOURCE_ID_CONSTRAINT = 'property_pictures_source_uq';

export function duplicatePropertySourceId(sourceId: string, existingId: string): ConflictError {
  return new ConflictError(`A property with sourceId ${sourceId} already exists (propertyId ${existingId}); update that property instead`, {
    existingId,
  });
}

export function duplicatePictureSourceId(sourceId: string, propertyId: string, existingId: string): ConflictError {
  return new ConflictError(
    `Property ${propertyId} already has a picture with sourceId ${sourceId} (pictureId ${existingId}); delete it first to replace it`,
    { existingId },
  );
}
