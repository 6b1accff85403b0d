/**
 * The webhook module's example values, one source for its declaration (the read shapes' examples) and
 * its controllers (the example requests): neither imports the other for them.
 */
export const WEBHOOK_EXAMPLE_IDS = {
  webhookId: 'sub_01JDZK8D6E7F8G9H0J1K2M3N4P',
  deliveryId: 'whd_01JDZK8W7X8Y9Z0A1B2C3D4E5F',
  replayId: 'rpl_01JDZKA1B2C3D4E5F6G7H8J9K0',
};

/** The example requests' values (the contract test swaps the URL for its receiver's). */
export const WEBHOOK_EXAMPLES = { ...WEBHOOK_EXAMPLE_IDS, webhookUrl: 'https://hooks.example.com/property-ops' };
