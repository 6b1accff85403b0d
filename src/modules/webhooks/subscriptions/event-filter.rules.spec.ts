import {
  EVENT_NAME_MAX_LENGTH,
  filtersSelectingNothing,
  isValidEventFilter,
  isValidEventName,
  matchesEventFilter,
  matchesEventFilters,
} from './event-filter.rules';

describe('event filter rules', () => {
  describe('isValidEventName', () => {
    it.each(['property.create', 'jobRequest.completed', 'comment.new', 'a.b', 'a1.b2.c3', 'X9.Y'])('accepts %s', (name) =>
      expect(isValidEventName(name)).toBe(true),
    );

    it.each([
      '',
      'property',
      '.property',
      'property.',
      'a..b',
      'job request.completed',
      'jobRequest.*',
      '*',
      'property-create.x',
      'property_create.x',
      'prop.créé',
      ' property.create',
      'property.create ',
      'property.create\n',
    ])('rejects %j', (name) => expect(isValidEventName(name)).toBe(false));

    it('rejects non-strings', () => {
      for (const value of [undefined, null, 1, {}, ['a.b']]) expect(isValidEventName(value)).toBe(false);
    });

    it('caps the length at the bound', () => {
      const atBound = `a.${'b'.repeat(EVENT_NAME_MAX_LENGTH - 2)}`;
      expect(atBound).toHaveLength(EVENT_NAME_MAX_LENGTH);
      expect(isValidEventName(atBound)).toBe(true);
      expect(isValidEventName(`${atBound}b`)).toBe(false);
    });
  });

  describe('isValidEventFilter', () => {
    it.each(['*', 'property.create', 'jobRequest.completed', 'jobRequest.*', 'a.b.*', 'a.b.c'])('accepts %s', (f) =>
      expect(isValidEventFilter(f)).toBe(true),
    );

    it.each([
      '',
      'job*',
      '.x',
      'x.',
      'a..b',
      '**',
      '*.*',
      '.*',
      '*.create',
      'jobRequest.c*',
      'jobRequest.**',
      'jobRequest*',
      'jobRequest',
      'job.*.done',
      ' *',
      '* ',
      'a b.c',
    ])('rejects %j', (f) => expect(isValidEventFilter(f)).toBe(false));

    it('rejects non-strings', () => {
      for (const value of [undefined, null, 7, true, {}, ['*']]) expect(isValidEventFilter(value)).toBe(false);
    });

    it('caps the length at the bound for names and wildcards', () => {
      const name = `a.${'b'.repeat(EVENT_NAME_MAX_LENGTH - 2)}`;
      expect(isValidEventFilter(name)).toBe(true);
      expect(isValidEventFilter(`${name}c`)).toBe(false);
      const wildcard = `${'a'.repeat(EVENT_NAME_MAX_LENGTH - 2)}.*`;
      expect(wildcard).toHaveLength(EVENT_NAME_MAX_LENGTH);
      expect(isValidEventFilter(wildcard)).toBe(true);
      expect(isValidEventFilter(`a${wildcard}`)).toBe(false);
    });
  });

  describe('matchesEventFilter', () => {
    it('* matches everything', () => {
      for (const name of ['property.create', 'jobRequest.completed', 'a.b.c']) {
        expect(matchesEventFilter('*', name)).toBe(true);
      }
    });

    it('a prefix wildcard matches names under the prefix only', () => {
      expect(matchesEventFilter('jobRequest.*', 'jobRequest.completed')).toBe(true);
      expect(matchesEventFilter('jobRequest.*', 'jobRequest.canceled')).toBe(true);
      expect(matchesEventFilter('jobRequest.*', 'jobRequest.task.completed')).toBe(true);
      expect(matchesEventFilter('jobRequest.*', 'jobRequest')).toBe(false);
      expect(matchesEventFilter('jobRequest.*', 'jobRequest.')).toBe(false);
      expect(matchesEventFilter('jobRequest.*', 'jobRequestX.y')).toBe(false);
      expect(matchesEventFilter('jobRequest.*', 'xjobRequest.completed')).toBe(false);
      expect(matchesEventFilter('jobRequest.*', 'property.create')).toBe(false);
      expect(matchesEventFilter('a.b.*', 'a.b.c')).toBe(true);
      expect(matchesEventFilter('a.b.*', 'a.bc.d')).toBe(false);
    });

    it('an exact name matches itself only, case-sensitively', () => {
      expect(matchesEventFilter('property.create', 'property.create')).toBe(true);
      expect(matchesEventFilter('property.create', 'Property.create')).toBe(false);
      expect(matchesEventFilter('property.create', 'property.created')).toBe(false);
      expect(matchesEventFilter('property.create', 'property.create.x')).toBe(false);
      expect(matchesEventFilter('jobRequest.*', 'JobRequest.completed')).toBe(false);
    });
  });

  describe('matchesEventFilters', () => {
    it('matches when any filter matches', () => {
      expect(matchesEventFilters(['property.create', 'jobRequest.*'], 'jobRequest.completed')).toBe(true);
      expect(matchesEventFilters(['property.create', 'jobRequest.*'], 'property.create')).toBe(true);
      expect(matchesEventFilters(['property.create', 'jobRequest.*'], 'comment.new')).toBe(false);
      expect(matchesEventFilters(['comment.new', '*'], 'anything.at.all')).toBe(true);
    });

    it('an empty list matches nothing', () => {
      expect(matchesEventFilters([], 'property.create')).toBe(false);
    });
  });

  describe('filtersSelectingNothing', () => {
    const names = ['property.create', 'booking.create', 'jobRequest.completed'];

    it('names the exact names and prefixes that select none of the names, in the order given', () => {
      expect(filtersSelectingNothing(['booking.nonsense', 'property.*', 'bookng.*', 'booking.create'], names)).toEqual([
        'booking.nonsense',
        'bookng.*',
      ]);
    });

    it('keeps nothing that selects a name: *, a prefix of one, an exact one', () => {
      expect(filtersSelectingNothing(['*', 'jobRequest.*', 'property.create'], names)).toEqual([]);
      expect(filtersSelectingNothing(['*'], [])).toEqual(['*']);
    });
  });
});
