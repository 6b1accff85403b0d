import { createHash } from 'node:crypto';
import { appEnvironment } from '../support/test-env';
import { loadConfig } from '../../src/config/config';
import { KeyDecision } from '../../src/platform/http/rate-limit.rules';
import { RateLimiter } from '../../src/platform/http/rate-limit.service';

/*
 * The Redis script and the in-memory fallback implement one algorithm twice (Lua and
 * TypeScript). The same sequence of requests runs through both, and every answer must match.
 */
const LIMITS = {
  RATE_LIMIT_PER_SECOND: '3',
  RATE_LIMIT_BURST: '5',
  RATE_LIMIT_PER_DAY: '4',
  RATE_LIMIT_FAILED_AUTH_PER_SECOND: '2',
  RATE_LIMIT_FAILED_AUTH_BURST: '3',
  // Nothing may expire during the test, so that only the counts decide.
  RATE_LIMIT_WINDOW_SECONDS: '3600',
  REDIS_PREFIX: `pop-test-${process.env.TEST_RUN_ID}-rate-limit-store`,
};
const WINDOW_MS = 3_600_000;

const hashOf = (name: string) => createHash('sha256').update(name).digest();
const [A, B, C] = ['a', 'b', 'c'].map(hashOf);
const ADDRESS = '198.51.100.1';

/** What must match between the two stores; times only within their windows (the clocks differ by milliseconds). */
function comparable(decision: KeyDecision) {
  const { windowMsLeft, dayMsLeft, ...rest } = decision;
  expect(windowMsLeft).toBeGreaterThan(0);
  expect(windowMsLeft).toBeLessThanOrEqual(WINDOW_MS * 10);
  expect(dayMsLeft).toBeGreaterThanOrEqual(0);
  expect(dayMsLeft).toBeLessThanOrEqual(86_400_000);
  return rest;
}

/** Runs the sequence on one limiter and returns every answer. */
async function sequence(limiter: RateLimiter): Promise<unknown[]> {
  const answers: unknown[] = [];
  const key = async (hash: Buffer) => {
    const decision = await limiter.takeKey(hash);
    answers.push(comparable(decision));
    return decision;
  };
  for (let i = 0; i < 7; i++) await key(A);
  const b = await key(B);
  const failure = await limiter.takeFailure(ADDRESS, { keyHash: B, took: b.took });
  answers.push(failure.allowed);
  for (let i = 0; i < 3; i++) answers.push((await limiter.takeFailure(ADDRESS)).allowed);
  answers.push(comparable(await limiter.takeGuarded(C, ADDRESS)));
  const guardedKnown = await limiter.takeGuarded(A, ADDRESS);
  answers.push(comparable(guardedKnown));
  await limiter.giveBack(A, guardedKnown.took);
  await key(A);
  await key(B); // B's earlier count was given back with its failure
  return answers;
}

describe('the rate-limit script and the in-memory fallback', () => {
  const onRedis = new RateLimiter(loadConfig({ ...process.env, ...LIMITS }));
  const inMemory = new RateLimiter(loadConfig(appEnvironment({ ...LIMITS, REDIS_URL: 'redis://127.0.0.1:1' })));

  beforeAll(() => Promise.all([onRedis.onModuleInit(), inMemory.onModuleInit()]));
  afterAll(() => Promise.all([onRedis.onApplicationShutdown(), inMemory.onApplicationShutdown()]));

  it('answer the same sequence of requests alike', async () => {
    const [redisAnswers, memoryAnswers] = [await sequence(onRedis), await sequence(inMemory)];
    expect(redisAnswers).toEqual(memoryAnswers);
    // And the sequence exercised every branch.
    const outcomes = (redisAnswers.filter((a) => typeof a === 'object') as KeyDecision[]).map((a) => a.outcome);
    expect(new Set(outcomes)).toEqual(new Set(['allowed', 'rate', 'day', 'addressBlocked']));
    expect(redisAnswers.filter((a) => a === false).length).toBeGreaterThan(0);
  });
});
