import { declareModule } from '../../platform/modules/module-declaration';
import { EXAMPLE_AT as at, EXAMPLE_BASE_URL as base } from '../../platform/openapi/examples';
import { PROPERTY_PICTURE_SHAPE } from './property-picture.response';
import { PROPERTY_IDS } from './properties.ids';
import { OTHER_ATTRIBUTE_SHAPE, PROPERTY_SHAPE } from './property.response';

const exampleIds = { propertyId: 'prop_01JDZK4M8Y8Q5X7W2N3B4C5D6E', pictureId: 'pic_01JDZK5A1B2C3D4E5F6G7H8J9K' };

/** The example requests' values (the route docs' examples; the contract test swaps the URL for a local one). */
export const PROPERTY_EXAMPLES = {
  ...exampleIds,
  pictureSourceUrl: 'https://images.example.com/villa-azur/living-room.jpg',
  propertyBody: {
    sourceId: 'villa-azur-17',
    name: 'Villa Azur',
    countryCode: 'FR',
    timeZone: 'Europe/Paris',
    location: { latitude: 43.5528, longitude: 7.0174 },
    beds: 4,
    bedrooms: 3,
    bathrooms: 2,
    type: 'villa',
    tags: ['sea-view'],
    bedDetails: [{ bedType: 'king', twinable: false, displayLabel: 'Master bedroom', quantity: 1 }],
    details: { access: 'Key box left of the gate', wifiName: 'Azur', wifiPassword: 'sunny-days' },
  },
};

const pictureUrl = `${base}/v1/propertyPictures/${exampleIds.pictureId}/content`;

export const PROPERTIES = declareModule({
  ids: PROPERTY_IDS,
  tenantTables: [{ table: 'properties' }, { table: 'property_pictures', blobKey: 'storage_key' }],
  exampleIds,
  shapes: [PROPERTY_SHAPE, OTHER_ATTRIBUTE_SHAPE, PROPERTY_PICTURE_SHAPE],
  examples: {
    Property: {
      propertyId: exampleIds.propertyId,
      sourceId: 'villa-azur-17',
      name: 'Villa Azur',
      note: null,
      pictureUrls: [pictureUrl],
      tags: ['sea-view'],
      location: { latitude: 43.5528, longitude: 7.0174 },
      timeZone: 'Europe/Paris',
      address: null,
      type: 'villa',
      countryCode: 'FR',
      bedrooms: 3,
      beds: 4,
      bathrooms: 2,
      bedDetails: [{ bedType: 'king', twinable: false, displayLabel: 'Master bedroom', quantity: 1 }],
      details: { access: 'Key box left of the gate', wifiName: 'Azur', wifiPassword: 'sunny-days' },
      createdAt: at,
      updatedAt: at,
    },
    PropertyPicture: {
      pictureId: exampleIds.pictureId,
      propertyId: exampleIds.propertyId,
      sourceId: 'living-room-1',
      sourceUrl: 'https://images.example.com/villa-azur/living-room.jpg',
      url: pictureUrl,
      contentType: 'image/jpeg',
      byteSize: 184233,
      createdAt: at,
    },
  },
  events: {
    'property.create': {
      payload: PROPERTY_SHAPE,
      when: '`POST /v1/properties` succeeded (not on an idempotent replay)',
      results: '`[property]`: as in the 201 response',
    },
    'property.update': {
      payload: PROPERTY_SHAPE,
      when: '`PATCH /v1/properties/{propertyId}` with at least one field succeeded (an empty body changes nothing and writes no event)',
      results: '`[property]`: the property after the update',
    },
    'property.delete': {
      payload: PROPERTY_SHAPE,
      when: '`DELETE /v1/properties/{propertyId}` succeeded; written after the `propertyPicture.delete`, `checklist.delete`, `booking.delete` and `reminder.delete` events of what it took with it',
      results: '`[property]`: the property as it was just before deletion (its `pictureUrls` included)',
    },
    'propertyPicture.create': {
      payload: PROPERTY_PICTURE_SHAPE,
      when: '`POST /v1/propertyPictures` succeeded (the image was downloaded and stored)',
      results: '`[picture]`: as in the 201 response',
    },
    'propertyPicture.delete': {
      payload: PROPERTY_PICTURE_SHAPE,
      when: "`DELETE /v1/propertyPictures/{pictureId}`, or its property was deleted (one event per picture, in the property delete's transaction)",
      results: '`[picture]`: the picture as it was',
    },
  },
  tags: {
    Properties: 'The root resource: create it first.',
    PropertyPictures: 'Pictures: the service downloads the image and serves its own copy.',
  },
});

declare module '../../platform/modules/module-declaration' {
  interface DeclaredModules {
    properties: typeof PROPERTIES;
  }
}
