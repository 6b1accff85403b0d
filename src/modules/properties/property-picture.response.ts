import { dateTime, described, id, int, str, uri } from '../../platform/openapi/json-schema';
import { readShape } from '../../platform/openapi/read-shape';
import { PropertyPictureEntity } from './property-picture.entity';
import { PROPERTY_IDS } from './properties.ids';

/** The address the service serves its stored copy at (behind x-api-key, like every route but health). */
export function pictureContentUrl(publicBaseUrl: string, picture: Pick<PropertyPictureEntity, 'id'>): string {
  return `${publicBaseUrl}/v1/propertyPictures/${picture.id}/content`;
}

export interface PropertyPictureResponse {
  pictureId: string;
  propertyId: string;
  sourceId: string;
  sourceUrl: string;
  /** Where the service serves its own copy; also listed in the property's pictureUrls. */
  url: string;
  contentType: string;
  byteSize: number;
  createdAt: string;
}

export function toPropertyPictureResponse(picture: PropertyPictureEntity, publicBaseUrl: string): PropertyPictureResponse {
  return {
    pictureId: picture.id,
    propertyId: picture.propertyId,
    sourceId: picture.sourceId,
    sourceUrl: picture.sourceUrl,
    url: pictureContentUrl(publicBaseUrl, picture),
    contentType: picture.contentType,
    byteSize: picture.byteSize,
    createdAt: new Date(picture.createdAt).toISOString(),
  };
}

export const PROPERTY_PICTURE_SHAPE = readShape<PropertyPictureResponse>(
  'PropertyPicture',
  "A property picture: the service's stored copy of the image at sourceUrl.",
  {
    pictureId: id(PROPERTY_IDS.picture),
    propertyId: id(PROPERTY_IDS.property),
    sourceId: str,
    sourceUrl: uri,
    url: described(uri, 'where the service serves its copy (also in the property pictureUrls)'),
    contentType: { type: 'string', examples: ['image/jpeg'] },
    byteSize: int,
    createdAt: dateTime,
  },
);
