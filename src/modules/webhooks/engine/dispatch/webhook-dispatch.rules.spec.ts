import { fanOut, inEventOrder, wakesOf } from './webhook-dispatch.rules';

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

describe('fanOut of operational events (extension)', () => {
  it('never delivers webhook.disabled / webhook.recovered to the subscription they are about', () => {
    const operational = [
      { id: 'evt_d', accountId: 'acct_a', eventName: 'webhook.disabled', clientRequestId: 'sub_dark' },
      { id: 'evt_r', accountId: 'acct_a', eventName: 'webhook.recovered', clientRequestId: 'sub_dark' },
    ];
    const candidates = ['evt_d', 'evt_r'].flatMap((eventId) => [
      { eventId, subscriptionId: 'sub_dark', eventFilters: ['*'] },
      { eventId, subscriptionId: 'sub_other', eventFilters: ['webhook.*'] },
    ]);
    expect(fanOut(operational, candidates).map((d) => `${d.eventId} ${d.subscriptionId}`)).toEqual(['evt_d sub_other', 'evt_r sub_other']);
  });

  it('delivers other events whatever their clientRequestId', () => {
    const event = { id: 'evt_p', accountId: 'acct_a', eventName: 'property.create', clientRequestId: 'sub_x' };
    expect(fanOut([event], [{ eventId: 'evt_p', subscriptionId: 'sub_x', eventFilters: ['*'] }])).toHaveLength(1);
  });
});

describe('inEventOrder', () => {
  it('orders a fan-out by event, then subscription (delivery ids are minted in this order)', () => {
    const deliveries = [
      { eventId: 'evt_2', subscriptionId: 'sub_a' },
      { eventId: 'evt_1', subscriptionId: 'sub_b' },
      { eventId: 'evt_1', subscriptionId: 'sub_a' },
    ];
    expect(inEventOrder(deliveries)).toEqual([
      { eventId: 'evt_1', subscriptionId: 'sub_a' },
      { eventId: 'evt_1', subscriptionId: 'sub_b' },
      { eventId: 'evt_2', subscriptionId: 'sub_a' },
    ]);
  });
});

describe('wakesOf', () => {
  it('wakes each subscription once, from its lowest new delivery id', () => {
    const created = [
      { id: 'whd_3', accountId: 'acct_a', subscriptionId: 'sub_a' },
      { id: 'whd_1', accountId: 'acct_a', subscriptionId: 'sub_a' },
      { id: 'whd_2', accountId: 'acct_b', subscriptionId: 'sub_b' },
    ];
    expect(wakesOf(created)).toEqual([
      { accountId: 'acct_a', subscriptionId: 'sub_a', fromId: 'whd_1' },
      { accountId: 'acct_b', subscriptionId: 'sub_b', fromId: 'whd_2' },
    ]);
    expect(wakesOf([])).toEqual([]);
  });
});

describe('ordered subscriptions (issue 31)', () => {
  it("gives an ordered subscription's delivery its event's transaction, and no other", () => {
    const withTx = [{ id: 'evt_1', accountId: 'acct_a', eventName: 'property.create', txId: '981' }];
    const deliveries = fanOut(withTx, [
      { eventId: 'evt_1', subscriptionId: 'sub_ordered', eventFilters: ['*'], ordered: true },
      { eventId: 'evt_1', subscriptionId: 'sub_plain', eventFilters: ['*'], ordered: false },
    ]);
    expect(deliveries.map((d) => [d.subscriptionId, d.orderTx])).toEqual([
      ['sub_ordered', '981'],
      ['sub_plain', undefined],
    ]);
  });

  it('marks a wake-up ordered when any of its new deliveries is in an order', () => {
    const wakes = wakesOf([
      { id: 'whd_2', accountId: 'acct_a', subscriptionId: 'sub_o', ordered: false },
      { id: 'whd_1', accountId: 'acct_a', subscriptionId: 'sub_o', ordered: true },
      { id: 'whd_3', accountId: 'acct_a', subscriptionId: 'sub_p', ordered: false },
    ]);
    expect(wakes).toEqual([
      { accountId: 'acct_a', subscriptionId: 'sub_o', fromId: 'whd_1', ordered: true },
      { accountId: 'acct_a', subscriptionId: 'sub_p', fromId: 'whd_3' },
    ]);
  });
});
