import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { match } from 'path-to-regexp';
import { DomainError } from '../errors/domain-error';
import { nestRoutes } from './nest-routes';

interface PathMethods {
  matches: (path: string) => boolean;
  /** Upper case; undefined for an @All route (every method). */
  methods?: Set<string>;
}

/**
 * The methods each route path is served with, from Nest's route metadata: a request whose path is a route's,
 * with a method none of them has, is a 405 whose `Allow` lists them (RFC 9110), not a 404. Paths match as
 * Express matches them (path-to-regexp, which Express's router uses: any case, an optional trailing slash).
 */
@Injectable()
export class RouteMethods implements OnApplicationBootstrap {
  private paths: PathMethods[] = [];

  constructor(private readonly discovery: DiscoveryService) {}

  onApplicationBootstrap(): void {
    const byPath = new Map<string, Set<string> | undefined>();
    for (const { method, path } of nestRoutes(this.discovery)) {
      const methods = byPath.has(path) ? byPath.get(path) : new Set<string>();
      byPath.set(path, method === '_all' || methods === undefined ? undefined : methods.add(method.toUpperCase()));
    }
    this.paths = [...byPath].map(([path, methods]) => {
      const matcher = match(path, { decode: false, sensitive: false, trailing: true });
      return { matches: (candidate: string) => matcher(candidate) !== false, methods };
    });
  }

  /** The 405 for `method` on `path` when the path is a route's and the method none of its own; else undefined. */
  refusal(method: string, path: string): DomainError | undefined {
    const allowed = new Set<string>();
    for (const candidate of this.paths) {
      if (!candidate.matches(path)) continue;
      if (!candidate.methods) return undefined;
      candidate.methods.forEach((m) => allowed.add(m));
    }
    if (allowed.has('GET')) allowed.add('HEAD'); // Express serves HEAD with the GET route
    if (allowed.size === 0 || allowed.has(method)) return undefined;
    const allow = [...allowed].sort().join(', ');
    return new DomainError(
      'method_not_allowed',
      'methodNotAllowed',
      `${method} is not a method of ${path}: it takes ${allow}`,
      {},
      { Allow: allow },
    );
  }
}
