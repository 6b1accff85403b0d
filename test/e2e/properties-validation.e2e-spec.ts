import { suite } from '../support/app';
import { pointersOf, uniq, validProperty } from '../support/properties';

describe('property validation', () => {
  const app = suite();

  describe('limits at their bounds', () => {
    const s = (n: number) => 'x'.repeat(n);
    const attr = (over: Record<string, unknown>) => ({ details: { otherAttributes: [{ label: 'L', value: 'v', ...over }] } });
    const bed = (over: Record<string, unknown>) => ({
      bedDetails: [{ bedType: 'queen', twinable: false, displayLabel: 'Q', quantity: 1, ...over }],
    });
    const tags = (n: number) => ({ tags: Array.from({ length: n }, (_, i) => `tag${i}`) });

    type Case = [string, Record<string, unknown>, boolean, string?];
    const cases: Case[] = [
      ['sourceId 4', { sourceId: `a${uniq()}`.slice(0, 4) }, false, '#/sourceId'],
      ['sourceId 5', { sourceId: null }, true],
      ['sourceId 100', { sourceId: 100 }, true],
      ['sourceId 101', { sourceId: 101 }, false, '#/sourceId'],
      ['name 2', { name: s(2) }, false, '#/name'],
      ['name 3', { name: s(3) }, true],
      ['name 100', { name: s(100) }, true],
      ['name 101', { name: s(101) }, false, '#/name'],
      ['latitude 90', { location: { latitude: 90, longitude: 0 } }, true],
      ['latitude -90', { location: { latitude: -90, longitude: 0 } }, true],
      ['latitude 90.0001', { location: { latitude: 90.0001, longitude: 0 } }, false, '#/location/latitude'],
      ['latitude -90.0001', { location: { latitude: -90.0001, longitude: 0 } }, false, '#/location/latitude'],
      ['longitude 180', { location: { latitude: 0, longitude: 180 } }, true],
      ['longitude -180', { location: { latitude: 0, longitude: -180 } }, true],
      ['longitude 180.0001', { location: { latitude: 0, longitude: 180.0001 } }, false, '#/location/longitude'],
      ['longitude -180.0001', { location: { latitude: 0, longitude: -180.0001 } }, false, '#/location/longitude'],
      ['latitude as string', { location: { latitude: '45', longitude: 0 } }, false, '#/location/latitude'],
      ['location with one coordinate', { location: { latitude: 45 } }, false, '#/location/longitude'],
      ['location as array', { location: [45, 3] }, false, '#/location'],
      ['tags 0 (empty list)', tags(0), false, '#/tags'],
      ['tags 1', tags(1), true],
      ['tags 10', tags(10), true],
      ['tags 11', tags(11), false, '#/tags'],
      ['tag of 50 chars', { tags: [s(50)] }, true],
      ['tag of 51 chars', { tags: [s(51)] }, false, '#/tags'],
      ['empty tag', { tags: [''] }, false, '#/tags'],
      ['tags as object', { tags: { a: 1 } }, false, '#/tags'],
      ['tags with a number', { tags: ['a', 2] }, false, '#/tags'],
      ['otherAttributes label 100', attr({ label: s(100) }), true],
      ['otherAttributes label 101', attr({ label: s(101) }), false, '#/details/otherAttributes/0/label'],
      ['otherAttributes value 500', attr({ value: s(500) }), true],
      ['otherAttributes value 501', attr({ value: s(501) }), false, '#/details/otherAttributes/0/value'],
      ['otherAttributes value array of 500s', attr({ value: [s(500), s(500)] }), true],
      ['otherAttributes value array with a 501', attr({ value: [s(500), s(501)] }), false, '#/details/otherAttributes/0/value'],
      ['otherAttributes value empty array', attr({ value: [] }), false, '#/details/otherAttributes/0/value'],
      ['otherAttributes value number', attr({ value: 5 }), false, '#/details/otherAttributes/0/value'],
      ['otherAttributes value missing', { details: { otherAttributes: [{ label: 'L' }] } }, false, '#/details/otherAttributes/0/value'],
      ['otherAttributes group 100', attr({ group: s(100) }), true],
      ['otherAttributes group 101', attr({ group: s(101) }), false, '#/details/otherAttributes/0/group'],
      ['otherAttributes pictures not URLs', attr({ pictures: ['not a url'] }), false, '#/details/otherAttributes/0/pictures'],
      ['displayLabel 100', bed({ displayLabel: s(100) }), true],
      ['displayLabel 101', bed({ displayLabel: s(101) }), false, '#/bedDetails/0/displayLabel'],
      ['bedType unknown', bed({ bedType: 'hammock' }), false, '#/bedDetails/0/bedType'],
      [
        'every bedType',
        {
          bedDetails: ['super-king', 'king', 'queen', 'twin', 'double', 'sofabed', 'child'].map((bedType) => ({
            bedType,
            twinable: true,
            displayLabel: bedType,
            quantity: 1,
          })),
        },
        true,
      ],
      ['quantity 0', bed({ quantity: 0 }), false, '#/bedDetails/0/quantity'],
      ['quantity 1.5', bed({ quantity: 1.5 }), false, '#/bedDetails/0/quantity'],
      ['twinable as string', bed({ twinable: 'yes' }), false, '#/bedDetails/0/twinable'],
      ['bedDetails item not an object', { bedDetails: [1] }, false, '#/bedDetails/0'],
      ['countryCode XX', { countryCode: 'XX' }, false, '#/countryCode'],
      ['countryCode lower case', { countryCode: 'us' }, false, '#/countryCode'],
      ['countryCode of 3 letters', { countryCode: 'USA' }, false, '#/countryCode'],
      ['timeZone Mars/Base', { timeZone: 'Mars/Base' }, false, '#/timeZone'],
      ['timeZone UTC', { timeZone: 'UTC' }, true],
      ['beds as string', { beds: '2' }, false, '#/beds'],
      ['beds 1.5', { beds: 1.5 }, false, '#/beds'],
      ['beds -1', { beds: -1 }, false, '#/beds'],
      ['beds 0', { beds: 0 }, true],
      ['bedrooms 1000', { bedrooms: 1000 }, true],
      ['bedrooms 1001', { bedrooms: 1001 }, false, '#/bedrooms'],
      ['bathrooms null', { bathrooms: null }, false, '#/bathrooms'],
      ['details as array', { details: [] }, false, '#/details'],
      ['details text of 5000', { details: { information: s(5000) } }, true],
      ['details text of 5001', { details: { information: s(5001) } }, false, '#/details/information'],
      [
        'disableRemindersAutomation as string',
        { details: { disableRemindersAutomation: 'true' } },
        false,
        '#/details/disableRemindersAutomation',
      ],
      ['type as number', { type: 3 }, false, '#/type'],
      ['pictureUrl empty', { pictureUrl: '' }, false, '#/pictureUrl'],
    ];

    // Rest parameters: rows without a pointer must not make jest think the test takes a done callback.
    it.each(cases)('%s', async (...[, overrides, ok, pointer]: Case) => {
      const body = validProperty(overrides);
      // Length cases build sourceIds of an exact size that stay unique per run.
      if (typeof overrides.sourceId === 'number') body.sourceId = uniq().padEnd(overrides.sourceId, 'x');
      if (overrides.sourceId === null) body.sourceId = uniq().padEnd(5, 'x').slice(-5);
      const res = await app.api.post('/v1/properties').send(body);
      if (ok) {
        expect(res.status).toBe(201);
      } else {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validationFailed');
        expect(pointersOf(res)).toContain(pointer);
      }
    });
  });

  describe('unknown fields', () => {
    it('rejects unknown fields at every depth and names each with a pointer', async () => {
      const res = await app.api
        .post('/v1/properties')
        .send(
          validProperty({
            colour: 'blue',
            location: { latitude: 1, longitude: 2, altitude: 3 },
            details: { wifiName: 'x', fax: '123', otherAttributes: [{ label: 'a', value: 'b', icon: 'x' }] },
            bedDetails: [
              { bedType: 'king', twinable: false, displayLabel: 'K', quantity: 1 },
              { bedType: 'king', twinable: false, displayLabel: 'K', quantity: 1, size: 'XL' },
            ],
          }),
        )
        .expect(400);
      expect(res.body.code).toBe('objectStrict');
      expect(pointersOf(res)).toEqual(
        ['#/colour', '#/location/altitude', '#/details/fax', '#/details/otherAttributes/0/icon', '#/bedDetails/1/size'].sort(),
      );
      expect(res.body.detail).toContain('details.otherAttributes[0].icon');
    });

    it('rejects read-only fields sent on create and update', async () => {
      const created = await app.api.post('/v1/properties').send(validProperty()).expect(201);
      const res = await app.api
        .post('/v1/properties')
        .send(validProperty({ propertyId: 'prop_x', note: 'n', pictureUrls: [] }))
        .expect(400);
      expect(pointersOf(res)).toEqual(['#/note', '#/pictureUrls', '#/propertyId']);
      const patch = await app.api
        .patch(`/v1/properties/${created.body.propertyId}`)
        .send({ address: 'x', location: { latitude: 1, longitude: 2, z: 0 } })
        .expect(400);
      expect(patch.body.code).toBe('objectStrict');
      expect(pointersOf(patch)).toEqual(['#/address', '#/location/z']);
    });
  });
});
