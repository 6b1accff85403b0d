import { compactJson, fillPlaceholders, matchShown, readdress } from './doc-example-output';

describe('matchShown', () => {
  it('matches … as any text and binds each placeholder with a prefix to the value it stood for', () => {
    const bound = matchShown(
      '{"accountId":"acct_…","apiKeyId":"key_…","apiKey":"popk_…"}',
      '{"accountId":"acct_01ABC","apiKeyId":"key_01DEF","apiKey":"popk_x_y-z"}\n',
    );
    expect([...bound!]).toEqual([
      ['acct_…', 'acct_01ABC'],
      ['key_…', 'key_01DEF'],
      ['popk_…', 'popk_x_y-z'],
    ]);
  });

  it('lets a bare … stand for the rest of an object, and binds nothing for it', () => {
    expect([...matchShown('{"propertyId":"prop_…","name":"Flat",…}', '{"propertyId":"prop_1","name":"Flat","beds":2}')!]).toEqual([
      ['prop_…', 'prop_1'],
    ]);
  });

  it('tells a longer placeholder from a shorter one by its text', () => {
    expect(matchShown('{"apiKey":"popk_test_…"}', '{"apiKey":"popk_abc"}')).toBeUndefined();
    expect(matchShown('{"apiKey":"popk_test_…"}', '{"apiKey":"popk_test_abc"}')!.get('popk_test_…')).toBe('popk_test_abc');
  });

  it('refuses output that differs outside the placeholders, or says more or less', () => {
    expect(matchShown('{"data":[],"hasMore":false}', '{"data":[],"hasMore":true}')).toBeUndefined();
    expect(matchShown('{"a":1}', '{"a":1}{"b":2}')).toBeUndefined();
    expect(matchShown('{"a":1,"b":2}', '{"a":1}')).toBeUndefined();
    expect(matchShown('a.b (c) [d] $e ^f', 'a.b (c) [d] $e ^f')).toBeDefined();
    expect(matchShown('a.b', 'aXb')).toBeUndefined();
  });
});

describe('fillPlaceholders', () => {
  it('puts in the value each placeholder stood for', () => {
    const bindings = new Map([
      ['acct_…', 'acct_01A'],
      ['popk_test_…', 'popk_test_k'],
    ]);
    expect(fillPlaceholders('keys:issue --account acct_… && curl -H "x-api-key: popk_test_…"', bindings)).toBe(
      'keys:issue --account acct_01A && curl -H "x-api-key: popk_test_k"',
    );
  });

  it('refuses a placeholder no example showed, and a bare …', () => {
    expect(() => fillPlaceholders('--account acct_…', new Map())).toThrow('acct_… is used before any example showed one');
    expect(() => fillPlaceholders('-H "x-api-key: …"', new Map())).toThrow(/a bare … in a command/);
  });
});

describe('compactJson and readdress', () => {
  it('drops the white space between JSON tokens, never inside strings', () => {
    expect(compactJson('{"a": "x y",\n "b": [1, 2]}')).toBe('{"a":"x y","b":[1,2]}');
    expect(compactJson('{"a": "say \\"hi there\\""}')).toBe('{"a":"say \\"hi there\\""}');
  });

  it('puts the run’s addresses where the page has its own', () => {
    expect(
      readdress('curl localhost:3000/v1 -d http://127.0.0.1:4000/', [
        ['localhost:3000', '127.0.0.1:5555'],
        ['127.0.0.1:4000', '127.0.0.1:6666'],
      ]),
    ).toBe('curl 127.0.0.1:5555/v1 -d http://127.0.0.1:6666/');
  });
});
