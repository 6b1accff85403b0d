import createClient, { type Client } from 'openapi-fetch';
import { LIST_CURSORS } from './generated/routes';
import type { paths, Problem } from './types';
import { type Fetch, retryingFetch, type RetryOptions } from './retry';

export interface PlatformClientOptions {
  /** The API's origin, e.g. https://api.example.com (the paths start with /v1). */
  baseUrl: string;
  /** The account's Platform API key, sent as x-api-key (never in URLs). */
  apiKey: string;
  /** Retries of 429 and 503 answers (Retry-After honoured); `false` turns them off. */
  retry?: RetryOptions | false;
  /** The fetch to send with (tests, proxies, instrumentation); default: the global fetch. */
  fetch?: Fetch;
  /** Extra headers on every request (a user-agent, say). */
  headers?: Record<string, string>;
}

/** A failed call: the problem document the API answered with (status, code, detail, errors…). */
export class PlatformApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
    readonly requestId: string | null,
  ) {
    super(problem ? `${status} ${problem.code}: ${problem.detail}` : `HTTP ${status}`);
    this.name = 'PlatformApiError';
  }
}

/** GET paths that answer the collection envelope ({data, nextCursor, hasMore}). */
export type ListPath = keyof typeof LIST_CURSORS & keyof paths;

type ListOperation<P extends ListPath> = paths[P]['get'];
type ListBody<P extends ListPath> =
  ListOperation<P> extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
/** The items of list `P`: `ItemOf<'/v1/bookings'>` is a Booking. */
export type ItemOf<P extends ListPath> = ListBody<P> extends { data: Array<infer Item> } ? Item : never;
/** What a list takes besides its cursor: path parameters and query filters (limit is the page size). */
export type PageParams<P extends ListPath> =
  ListOperation<P> extends { parameters: infer Params }
    ? {
        path?: Params extends { path?: infer Path } ? Path : never;
        query?: Params extends { query?: infer Query } ? Omit<NonNullable<Query>, 'cursor' | 'after'> : never;
      }
    : never;

export interface PlatformClient {
  /** The typed calls, one method per HTTP verb: `api.GET('/v1/bookings/{bookingId}', { params: { path: { bookingId } } })`. */
  api: Client<paths>;
  /**
   * Every item of a list, page after page, following nextCursor while hasMore (or `after` for the event
   * feed). A failed page throws a PlatformApiError.
   */
  paginate<P extends ListPath>(path: P, params?: PageParams<P>): AsyncGenerator<ItemOf<P>, void, undefined>;
}

/** The client: the generated typed calls on a fetch that authenticates and retries. */
export function createPlatformClient(options: PlatformClientOptions): PlatformClient {
  const base: Fetch = options.fetch ?? ((request) => fetch(request));
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...options.headers, 'x-api-key': options.apiKey },
    fetch: options.retry === false ? base : retryingFetch(base, options.retry ?? {}),
  });

  async function* paginate<P extends ListPath>(
    path: P,
    params: PageParams<P> = {} as PageParams<P>,
  ): AsyncGenerator<ItemOf<P>, void, undefined> {
    const cursorParam = LIST_CURSORS[path];
    let cursor: string | undefined;
    for (;;) {
      const query = { ...(params.query ?? {}), ...(cursor !== undefined && cursorParam ? { [cursorParam]: cursor } : {}) };
      // The path is one of the lists; openapi-fetch's per-path option types cannot follow a generic path.
      const { data, error, response } = await (
        api.GET as (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>
      )(path, { params: { ...params, query } });
      if (data === undefined) throw errorOf(response, error);
      const page = data as { data: Array<ItemOf<P>>; nextCursor: string | null; hasMore: boolean };
      yield* page.data;
      if (!page.hasMore || page.nextCursor === null || !cursorParam) return;
      cursor = page.nextCursor;
    }
  }

  return { api, paginate };
}

/** The error of a failed call, for `const { data, error, response } = await api.POST(…); if (error) throw errorOf(response, error)`. */
export function errorOf(response: Response, body: unknown): PlatformApiError {
  const problem = body && typeof body === 'object' && 'code' in body ? (body as Problem) : undefined;
  return new PlatformApiError(response.status, problem, response.headers.get('x-request-id'));
}

/** The data of a call, or its PlatformApiError thrown: `const booking = await must(api.POST('/v1/bookings', { body }))`. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (data === undefined && !response.ok) throw errorOf(response, error);
  return data as T;
}
