import { fanOut } from './webhook-dispatch.rules';

const events = [
  { id: 'evt_1', accountId: 'acct_a', eventName: 'property.create' },
  { id: 'evt_2', accountId: 'acct_a', eventName: 'jobRequest.completed' },
];

describe('fanOut', () => {
  it('keeps the candidates whose filters match their own event, with the event account and name', () => {
    const candidates = [
      { eventId: 'evt_1', subscriptionId: 'sub_all', eventFilters: ['*'] },
      { eventId: 'evt_2', subscriptionId: 'sub_all', eventFilters: ['*'] },
      { eventId: 'evt_1', subscriptionId: 'sub_jobs', eventFilters: ['jobRequest.*'] },
      { eventId: 'evt_2', subscriptionId: 'sub_jobs', eventFilters: ['jobRequest.*'] },
      { eventId: 'evt_1', subscriptionId: 'sub_exact', eventFilters: ['property.create'] },
      { eventId: 'evt_2', subscriptionId: 'sub_exact', eventFilters: ['property.create'] },
    ];
    expect(fanOut(events, candidates)).toEqual([
      { accountId: 'acct_a', subscriptionId: 'sub_all', eventId: 'evt_1', eventName: 'property.create' },
      { accountId: 'acct_a', subscriptionId: 'sub_all', eventId: 'evt_2', eventName: 'jobRequest.completed' },
      { accountId: 'acct_a', subscriptionId: 'sub_jobs', eventId: 'evt_2', eventName: 'jobRequest.completed' },
      { accountId: 'acct_a', subscriptionId: 'sub_exact', eventId: 'evt_1', eventName: 'property.create' },
    ]);
  });

  it('makes one delivery per (event, subscription) however many filters match, and none for an unknown event', () => {
    const candidates = [
      { eventId: 'evt_1', subscriptionId: 'sub_both', eventFilters: ['property.create', 'property.*', '*'] },
      { eventId: 'evt_1', subscriptionId: 'sub_both', eventFilters: ['property.create', 'property.*', '*'] },
      { eventId: 'evt_gone', subscriptionId: 'sub_both', eventFilters: ['*'] },
    ];
    expect(fanOut(events, candidates)).toEqual([
      { accountId: 'acct_a', subscriptionId: 'sub_both', eventId: 'evt_1', eventName: 'property.create' },
    ]);
  });

  it('makes nothing when no filter matches', () => {
    expect(fanOut(events, [{ eventId: 'evt_1', subscriptionId: 'sub_x', eventFilters: ['property.create.extra', 'propertyX.*'] }])).toEqual(
      [],
    );
  });
});
