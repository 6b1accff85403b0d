/**
 * The example requests' values, shared by the route docs (@RouteDoc on each handler) and the
 * contract test. The ids below are placeholders: the contract test
 * (test/e2e/openapi-contract.e2e-spec.ts) creates the resources from the create examples, then
 * replaces each placeholder id (and the two example URLs) with the real one before sending the
 * other examples, so every documented example request is one that works.
 */
export const EXAMPLE_IDS = {
  propertyId: 'prop_01JDZK4M8Y8Q5X7W2N3B4C5D6E',
  pictureId: 'pic_01JDZK5A1B2C3D4E5F6G7H8J9K',
  checklistId: 'chk_01JDZK5T4V7W8X9Y0Z1A2B3C4D',
  bookingId: 'bk_01JDZK6B2C3D4E5F6G7H8J9K0M',
  reminderId: 'rem_01JDZK6R3S4T5V6W7X8Y9Z0A1B',
  jobRequestId: 'job_01JDZK7C4D5E6F7G8H9J0K1M2N',
  commentId: 'cmt_01JDZK7M5N6P7Q8R9S0T1V2W3X',
  webhookId: 'sub_01JDZK8D6E7F8G9H0J1K2M3N4P',
  calendarFeedId: 'cal_01JDZKAF9G0H1J2K3M4N5P6Q7R',
  deliveryId: 'whd_01JDZK8W7X8Y9Z0A1B2C3D4E5F',
  replayId: 'rpl_01JDZKA1B2C3D4E5F6G7H8J9K0',
  eventId: 'evt_01JDZK9E8F9G0H1J2K3M4N5P6Q',
  taskGroupId: 'tgrp_01JDZK5V4W5X6Y7Z8A9B0C1D2E',
  taskId: 'task_01JDZK5W5X6Y7Z8A9B0C1D2E3F',
  accountId: 'acct_01JDZK3A1B2C3D4E5F6G7H8J9K',
  legacyBatchId: 'lbat_01JDZKA1B2C3D4E5F6G7H8J9K0',
};

export const EXAMPLE = {
  ...EXAMPLE_IDS,
  pictureSourceUrl: 'https://images.example.com/villa-azur/living-room.jpg',
  webhookUrl: 'https://hooks.example.com/property-ops',
  legacyWebhookUrl: 'https://hooks.example.com/property-ops-legacy',
  calendarFeedUrl: 'https://www.airbnb.com/calendar/ical/41872215.ics?s=5f0d2c3b9a8e7f6d',

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
  checklistBody: {
    title: 'Turnover clean',
    propertyId: EXAMPLE_IDS.propertyId,
    description: 'After every stay',
    taskGroups: [
      {
        title: 'Kitchen',
        verificationRequired: true,
        tasks: [{ label: 'Empty the dishwasher', sourceTaskId: 'kit-1' }, { label: 'Wipe the counters' }],
      },
    ],
  },
  bookingBody: {
    sourceBookingId: 'airbnb-HM4K2Q',
    propertyId: EXAMPLE_IDS.propertyId,
    startDate: '2030-07-10T15:00:00Z',
    endDate: '2030-07-15T10:00:00Z',
    numberOfGuests: 2,
    guestDetails: [{ sourceId: 'guest-1', firstName: 'Ana', lastName: 'Lima' }],
    title: 'Summer stay',
  },
  reminderBody: {
    title: 'Check the pool pump',
    date: '2030-07-15T11:00:00Z',
    propertyId: EXAMPLE_IDS.propertyId,
    actionable: true,
    checklists: [{ checklistId: EXAMPLE_IDS.checklistId }],
  },
  jobBody: {
    serviceProviders: [{ email: 'cleaner@example.com' }],
    time: { type: 'fixed', startTime: '2030-07-15T11:00:00Z', durationInHours: 3 },
    property: { propertyId: EXAMPLE_IDS.propertyId, parking: 'Use spot 4' },
    checklists: [{ checklistId: EXAMPLE_IDS.checklistId }],
    offeredPrice: 80,
    offeredPriceCurrency: 'EUR',
    message: 'Turnover after the summer stay',
    sourceBookingId: 'airbnb-HM4K2Q',
  },
};

/** POST /legacy/batch's example: two records, each the legacy form of a Platform call. */
export const EXAMPLE_LEGACY_BATCH: { records: Array<Record<string, unknown>> } = { records: [] };
EXAMPLE_LEGACY_BATCH.records.push(
  {
    clientRequestId: 'rename-villa',
    entity: 'property',
    action: 'update',
    entityId: EXAMPLE_IDS.propertyId,
    changes: { name: 'Villa Azur (sea view)' },
  },
  { clientRequestId: 'new-reminder', entity: 'reminder', action: 'create', data: EXAMPLE.reminderBody },
);
