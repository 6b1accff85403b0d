import { BedDetail, OtherAttribute, PropertyDetails, PropertyEntity } from './property.entity';
import {
  arrayOf,
  bool,
  dateTime,
  described,
  enumOf,
  id,
  int,
  optional,
  orNull,
  ref,
  shapeOf,
  str,
  uri,
} from '../../platform/openapi/json-schema';
import { inKeyOrder, readShape } from '../../platform/openapi/read-shape';
import { pictureContentUrl } from './property-picture.response';
import { BED_TYPES } from './property.rules';
import { PROPERTY_IDS } from './properties.ids';

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

/** An otherAttributes item (property and booking) in the spec's field order. */
export function toOtherAttribute(attribute: OtherAttribute): OtherAttribute {
  return inKeyOrder(attribute, ['label', 'value', 'group', 'pictures']);
}

function toDetails(details: PropertyDetails | null): PropertyDetails | null {
  if (!details) return null;
  const shape = inKeyOrder(details, DETAIL_TEXTS);
  if (details.otherAttributes !== undefined) shape.otherAttributes = details.otherAttributes.map(toOtherAttribute);
  return shape;
}

export const OTHER_ATTRIBUTE_SHAPE = readShape<OtherAttribute>(
  'OtherAttribute',
  'A labelled attribute (property and booking: label ≤ 100, value ≤ 500 characters each; jobs: label ≤ 60, value ≤ 100).',
  { label: str, value: { oneOf: [str, arrayOf(str)] }, group: optional(str), pictures: optional(arrayOf(str)) },
);

/** The published schema of PropertyResponse (components/schemas/Property). */
export const PROPERTY_SHAPE = readShape<PropertyResponse>(
  'Property',
  'A property (spec 2.1). Fields the client never set are null; details.disableRemindersAutomation is never returned.',
  {
    propertyId: id(PROPERTY_IDS.property),
    sourceId: str,
    name: str,
    note: { type: 'null', description: 'no write field sets a note' },
    pictureUrls: described(arrayOf(uri), "the service's copies of the property's pictures (behind x-api-key)"),
    tags: orNull(arrayOf(str)),
    location: shapeOf<PropertyResponse['location']>('Coordinates of the property.', {
      latitude: { type: 'number', minimum: -90, maximum: 90 },
      longitude: { type: 'number', minimum: -180, maximum: 180 },
    }),
    timeZone: str,
    address: described(orNull(str), 'server-derived text'),
    type: orNull(str),
    countryCode: str,
    bedrooms: int,
    beds: int,
    bathrooms: int,
    bedDetails: orNull(
      arrayOf(shapeOf<BedDetail>('A bed.', { bedType: enumOf(BED_TYPES), twinable: bool, displayLabel: str, quantity: int })),
    ),
    details: orNull(
      shapeOf<PropertyDetails>('Property details as written.', {
        information: optional(orNull(str)),
        access: optional(orNull(str)),
        garbage: optional(orNull(str)),
        parking: optional(orNull(str)),
        wifiName: optional(orNull(str)),
        wifiPassword: optional(orNull(str)),
        wifiDescription: optional(orNull(str)),
        otherAttributes: optional(orNull(arrayOf(ref(OTHER_ATTRIBUTE_SHAPE.name)))),
      }),
    ),
    createdAt: dateTime,
    updatedAt: dateTime,
  },
);
