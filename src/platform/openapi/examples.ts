/**
 * Values the modules' examples share (their declarations, `<module>.declaration.ts`, hold the
 * examples themselves): the instant every example is stamped with and the API's base URL.
 */
export const EXAMPLE_AT = '2030-06-20T09:30:00.000Z';
export const EXAMPLE_BASE_URL = 'https://api.property-ops.example';
