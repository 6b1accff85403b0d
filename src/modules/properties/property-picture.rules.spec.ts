import { pictureFailureDetail } from './property-picture.rules';

describe('pictureFailureDetail', () => {
  it('explains each failure', () => {
    expect(pictureFailureDetail('timeout', 'the URL did not answer within 10 s')).toBe(
      'sourceUrl could not be downloaded: the URL did not answer within 10 s',
    );
    expect(pictureFailureDetail('too_large', 'the image is larger than 10 MB')).toBe(
      'sourceUrl could not be downloaded: the image is larger than 10 MB',
    );
    expect(pictureFailureDetail('forbidden_url', 'host resolves to a non-public address')).toBe(
      'sourceUrl is not allowed: host resolves to a non-public address',
    );
    expect(pictureFailureDetail('not_an_image', '')).toBe('sourceUrl is not an image (jpeg, png, webp or gif)');
  });
});
