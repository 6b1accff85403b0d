import { BedDetail, OtherAttribute, PropertyDetails, PropertyEntity } from './property.entity';
import { pictureContentUrl } from './property-picture.response';

/** The property read shape (spec 2.1). Fields the client never set are null; disableRemindersAutomation is never here. */
export interface PropertyResponse {
  propertyId: string;
  sourceId: string;
  name: string;
  /** No write field sets a note; always null (kept for the legacy read shape). */
  note: string | null;
  pictureUrls: string[];
  tags: string[] | null;
  location: { latitude: number; longitude: number };
  timeZone: string;
  address: string | null;
  type: string | null;
  countryCode: string;
  bedrooms: number;
  beds: number;
  bathrooms: number;
  bedDetails: BedDetail[] | null;
  details: PropertyDetails | null;
  createdAt: string;
  updatedAt: string;
}

/** The one mapper: controller responses and event results both use it. `pictures` in creation order. */
export function toPropertyResponse(
  property: PropertyEntity,
  pictures: ReadonlyArray<{ id: string }>,
  publicBaseUrl: string,
): PropertyResponse {
  return {
    propertyId: property.id,
    sourceId: property.sourceId,
    name: property.name,
    note: null,
    pictureUrls: pictures.map((picture) => pictureContentUrl(publicBaseUrl, picture)),
    tags: property.tags,
    location: { latitude: property.latitude, longitude: property.longitude },
    timeZone: property.timeZone,
    address: property.address,
    type: property.type,
    countryCode: property.countryCode,
    bedrooms: property.bedrooms,
    beds: property.beds,
    bathrooms: property.bathrooms,
    bedDetails: property.bedDetails?.map(toBedDetail) ?? null,
    details: toDetails(property.details),
    createdAt: new Date(property.createdAt).toISOString(),
    updatedAt: new Date(property.updatedAt).toISOString(),
  };
}

/*
 * bedDetails and details live in jsonb, which reorders object keys. The shape is rebuilt in the
 * spec's field order (2.1), so it reads as written; listing the keys also means nothing but the
 * spec's fields can ever leave (disableRemindersAutomation has its own column anyway).
 */
const DETAIL_TEXTS = ['information', 'access', 'garbage', 'parking', 'wifiName', 'wifiPassword', 'wifiDescription'] as const;

function toBedDetail(bed: BedDetail): BedDetail {
  return { bedType: bed.bedType, twinable: bed.twinable, displayLabel: bed.displayLabel, quantity: bed.quantity };
}

function toOtherAttribute(attribute: OtherAttribute): OtherAttribute {
  const shape: OtherAttribute = { label: attribute.label, value: attribute.value };
  if (attribute.group !== undefined) shape.group = attribute.group;
  if (attribute.pictures !== undefined) shape.pictures = attribute.pictures;
  return shape;
}

function toDetails(details: PropertyDetails | null): PropertyDetails | null {
  if (!details) return null;
  const shape: PropertyDetails = {};
  for (const key of DETAIL_TEXTS) if (details[key] !== undefined) shape[key] = details[key];
  if (details.otherAttributes !== undefined) shape.otherAttributes = details.otherAttributes.map(toOtherAttribute);
  return shape;
}
