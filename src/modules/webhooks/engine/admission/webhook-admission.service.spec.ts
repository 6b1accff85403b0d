import { AppConfig } from '../../../../config/config';
import { AdmittedWork, WebhookAdmission } from './webhook-admission.service';
import { WebhookPacing } from './webhook-pacing.service';

/** Admission with the pacing faked: what it reserves, and the turns it hands out (this process's clock, ms). */
function admission(concurrencyPerSubscription: number, turns: (wanted: number) => number[], alone = true) {
  const reserved: number[] = [];
  const pacing = {
    turns: async (_work: AdmittedWork, wanted: number) => (reserved.push(wanted), turns(wanted)),
    startOne: async () => alone,
  } as unknown as WebhookPacing;
  const config = { webhook: { concurrencyPerSubscription } } as AppConfig;
  return { reserved, admission: new WebhookAdmission(config, pacing) };
}

const work = (subscriptionId = 'sub_1'): AdmittedWork => ({
  subscriptionId,
  subscription: {
    url: 'https://example.com/hook',
    enabled: true,
    maxRetries: 5,
    signingSecret: null,
    previousSecret: null,
    previousSecretExpiresAt: null,
    signingKey: null,
    previousSigningKey: null,
    dark: false,
    rateLimitPerSecond: 10,
  },
});

describe('WebhookAdmission', () => {
  it("reserves a batch's turns for the rest of the batch whenever they run out, in order", async () => {
    // Two turns per reservation, both due now.
    const { admission: admit, reserved } = admission(10, (wanted) => Array.from({ length: Math.min(2, wanted) }, () => Date.now()));
    const works = [work(), work(), work(), work(), work()];
    const turns = admit.forBatch(works);
    for (const i of [0, 1, 3, 4]) expect(await admit.admit(works[i], turns)).toEqual(expect.any(Function)); // works[2] stopped: no turn
    expect(reserved).toEqual([5, 2]);
  });

  it('waits for a turn ahead', async () => {
    const { admission: admit } = admission(10, () => [Date.now() + 50]);
    const started = Date.now();
    expect(await admit.admit(work(), admit.forBatch([work()]))).toEqual(expect.any(Function));
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('refuses an attempt alone without a turn within the horizon, before taking a slot', async () => {
    const { admission: admit } = admission(1, () => [], false);
    expect(await admit.admit(work(), admit.alone())).toBeNull();
    expect(admit.room('sub_1', 100)).toBe(2); // its slot untouched: one free, one waiter
  });

  it("holds one of the subscription's slots per admitted attempt; a saturated subscription is parked", async () => {
    const { admission: admit } = admission(1, () => []);
    const release = await admit.admit(work(), admit.alone());
    expect(release).toEqual(expect.any(Function));
    expect(admit.room('sub_1', 100)).toBe(1); // a waiter, no free slot
    expect(admit.room('sub_2', 100)).toBe(2);
    release!();
    expect(admit.isSaturated('sub_1')).toBe(false);
    expect(admit.parkDelayMs('sub_1')).toBeGreaterThan(0);
  });
});
