import { errorChain } from './error-chain';

describe('errorChain', () => {
  it('walks causes and aggregated errors outermost first, each once, within the limit', () => {
    const root = new Error('refused');
    const aggregate = new AggregateError([root, new Error('unreachable')], 'all addresses failed');
    const outer = new TypeError('fetch failed', { cause: aggregate });
    (root as { cause?: unknown }).cause = outer; // a cycle
    expect([...errorChain(outer)].map((e) => (e as Error).message)).toEqual([
      'fetch failed',
      'all addresses failed',
      'refused',
      'unreachable',
    ]);
    expect([...errorChain(outer, 2)]).toHaveLength(2);
    expect([...errorChain('not an object')]).toEqual([]);
  });
});
