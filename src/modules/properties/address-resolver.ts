import * as countries from 'i18n-iso-countries';
import { Injectable } from '@nestjs/common';
import { formatCoordinates } from './property.rules';

/** What the server derives the read shape's `address` text from. */
export interface AddressInput {
  countryCode: string;
  latitude: number;
  longitude: number;
  timeZone: string;
}

/**
 * Derives the property's address text. The default is offline; a geocoder can
 * replace it by providing ADDRESS_RESOLVER. PropertiesService calls it BEFORE
 * opening its transaction, so a network implementation never holds a transaction.
 */
export interface AddressResolver {
  resolve(input: AddressInput): Promise<string | null>;
}

export const ADDRESS_RESOLVER = Symbol('ADDRESS_RESOLVER');

// English country names are bundled with i18n-iso-countries; register them once.
// eslint-disable-next-line @typescript-eslint/no-require-imports
countries.registerLocale(require('i18n-iso-countries/langs/en.json'));

/** "48.8566° N, 2.3522° E, France (Europe/Paris)": no street-level data without a geocoder. */
@Injectable()
export class OfflineAddressResolver implements AddressResolver {
  async resolve(input: AddressInput): Promise<string | null> {
    const country = countries.getName(input.countryCode, 'en') ?? input.countryCode;
    return `${formatCoordinates(input.latitude, input.longitude)}, ${country} (${input.timeZone})`;
  }
}
