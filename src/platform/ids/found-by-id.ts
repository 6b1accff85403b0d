import { NotFoundError } from '../errors/domain-error';
import { IdKind, isIdOf } from './ids';

/**
 * What `find` returns for a well-formed id of `kind`, else a NotFoundError for the `resource`: a malformed
 * id costs no query and answers the same 404 as an unknown or another account's one.
 */
export async function foundById<T>(kind: IdKind, id: string, resource: string, find: () => Promise<T | null | undefined>): Promise<T> {
  const found = isIdOf(kind, id) ? await find() : undefined;
  if (!found) throw new NotFoundError(resource, id);
  return found;
}
