import { applyDetails, formatCoordinates } from './property.rules';

describe('applyDetails', () => {
  const empty = { details: null, disableRemindersAutomation: false };

  it('splits the write-only flag off what is stored', () => {
    expect(applyDetails(empty, { wifiName: 'home', disableRemindersAutomation: true })).toEqual({
      details: { wifiName: 'home' },
      disableRemindersAutomation: true,
    });
  });

  it('leaves everything as it is when details is not sent', () => {
    const current = { details: { access: 'code 1234' }, disableRemindersAutomation: true };
    expect(applyDetails(current, undefined)).toBe(current);
  });

  it('merges shallowly: keys not sent stay, keys sent replace, the flag survives an echo of the read shape', () => {
    const current = { details: { access: 'code 1234', parking: 'street' }, disableRemindersAutomation: true };
    expect(applyDetails(current, { access: 'code 9999', parking: 'street' })).toEqual({
      details: { access: 'code 9999', parking: 'street' },
      disableRemindersAutomation: true,
    });
  });

  it('treats keys present as undefined (declared DTO fields) as not sent', () => {
    const current = { details: { access: 'x', parking: 'y' }, disableRemindersAutomation: true };
    expect(applyDetails(current, { access: 'z', parking: undefined, disableRemindersAutomation: undefined })).toEqual({
      details: { access: 'z', parking: 'y' },
      disableRemindersAutomation: true,
    });
  });

  it('replaces otherAttributes as a whole', () => {
    const current = { details: { otherAttributes: [{ label: 'a', value: 'b' }] }, disableRemindersAutomation: false };
    expect(applyDetails(current, { otherAttributes: [{ label: 'c', value: ['d'] }] }).details).toEqual({
      otherAttributes: [{ label: 'c', value: ['d'] }],
    });
  });

  it('removes keys sent as null and stores null when nothing is left', () => {
    const current = { details: { access: 'x', parking: 'y' }, disableRemindersAutomation: true };
    expect(applyDetails(current, { access: null })).toEqual({ details: { parking: 'y' }, disableRemindersAutomation: true });
    expect(applyDetails(current, { access: null, parking: null }).details).toBeNull();
  });

  it('resets the flag to false when it is sent as null, and keeps it when details is cleared', () => {
    const current = { details: { access: 'x' }, disableRemindersAutomation: true };
    expect(applyDetails(current, { disableRemindersAutomation: null }).disableRemindersAutomation).toBe(false);
    expect(applyDetails(current, null)).toEqual({ details: null, disableRemindersAutomation: true });
  });
});

describe('formatCoordinates', () => {
  it('rounds to 4 decimals with hemispheres', () => {
    expect(formatCoordinates(48.85661, 2.35222)).toBe('48.8566° N, 2.3522° E');
    expect(formatCoordinates(-33.8688, -151.20929)).toBe('33.8688° S, 151.2093° W');
  });
});
