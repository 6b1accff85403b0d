/** For unit tests: the error `fn` throws, typed as the caller expects; fails when it throws nothing. */
export function thrown<E extends Error = Error>(fn: () => unknown): E {
  try {
    fn();
  } catch (error) {
    return error as E;
  }
  throw new Error('expected an error');
}
