import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { IS_PUBLIC } from '../../platform/http/public.decorator';
import { nestRoutes } from '../../platform/http/nest-routes';
import { BEARER_KEY_ACCEPTED } from './bearer-key.decorator';
import { LEGACY_KEY_REQUIRED } from './legacy-key.decorator';
import { TEST_MODE_ONLY } from './test-mode-only.decorator';

/** What the key check needs to know of a route, read once from its handler's and controller's metadata. */
export interface KeyRoutePlan {
  isPublic: boolean;
  /** @BearerKeyAccepted: the key may also come as `Authorization: Bearer`. */
  bearer: boolean;
  /** @LegacyKeyRequired: Platform keys are refused with 403. */
  legacy: boolean;
  /** @TestModeOnly: a live key gets 404 there unless the test helpers are on. */
  testModeOnly: boolean;
}

/** A route as Express holds it (router 2.x): its template, its methods, and its layer's matcher. */
interface ExpressRoute {
  path: string;
  methods: Record<string, boolean>;
}
interface ExpressLayer {
  route?: ExpressRoute;
  match?: (path: string) => boolean;
}

export interface PlannedRoute {
  /** Express's Route object: set as req.route on an early refusal, so logs and metrics name the route as before. */
  route: ExpressRoute;
  plan: KeyRoutePlan;
}

interface Entry {
  layer: ExpressLayer & { route: ExpressRoute; match: (path: string) => boolean };
  plan?: KeyRoutePlan;
}

/**
 * Route plans: which key check each of our routes needs, decided at start-up, so the entry middleware
 * can authenticate (and refuse) a request before body parsing, Express's remaining layers and Nest's
 * pipeline. Matching uses Express's own layers in their order (first match wins, as when Express
 * routes the request), indexed by the first two path segments so a request tries a handful of layers.
 * A route whose first match is not a Nest handler we planned (the metrics scrape, the OpenAPI
 * reference, an ambiguous path) gets no plan: ApiKeyGuard decides for it in Nest's pipeline, as before.
 */
@Injectable()
export class RoutePlans implements OnApplicationBootstrap {
  private readonly byPrefix = new Map<string, Entry[]>();
  /** Layers whose first two segments are not literal, tried for every request (after the prefix's own, in stack order). */
  private wild: Entry[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    const plans = this.plansByRoute();
    const express = this.adapterHost.httpAdapter.getInstance<{ router?: { stack?: ExpressLayer[] } }>();
    const entries: Array<Entry & { index: number; prefix?: string }> = [];
    (express.router?.stack ?? []).forEach((layer, index) => {
      if (!layer.route || typeof layer.match !== 'function') return;
      const route = layer.route;
      const methods = Object.keys(route.methods).filter((m) => route.methods[m]);
      const plan = methods.length === 1 ? plans.get(`${methods[0]} ${route.path}`) : undefined;
      entries.push({ layer: layer as Entry['layer'], plan: plan ?? undefined, index, prefix: literalPrefix(route.path) });
    });
    this.wild = entries.filter((e) => e.prefix === undefined);
    for (const prefix of new Set(entries.map((e) => e.prefix).filter((p): p is string => p !== undefined))) {
      this.byPrefix.set(
        prefix,
        entries.filter((e) => e.prefix === prefix || e.prefix === undefined).sort((a, b) => a.index - b.index),
      );
    }
  }

  /** The route Express will serve the request with, when it is one of ours with a plan. */
  find(req: IncomingMessage & { originalUrl?: string }): PlannedRoute | undefined {
    // originalUrl: a middleware mounted on a path pattern sees req.url relative to it.
    const url = req.originalUrl ?? req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const method = (req.method ?? 'GET').toLowerCase();
    for (const entry of this.byPrefix.get(prefixOf(path)) ?? this.wild) {
      if (!handles(entry.layer.route, method)) continue;
      let matched: boolean;
      try {
        matched = entry.layer.match(path);
      } catch {
        return undefined; // a malformed escape in a parameter: Express answers it as it always has
      }
      if (matched) return entry.plan ? { route: entry.layer.route, plan: entry.plan } : undefined;
    }
    return undefined;
  }

  /** Each handler's plan by `method template` as Nest mounts it; a key two handlers share is left out. */
  private plansByRoute(): Map<string, KeyRoutePlan | null> {
    const plans = new Map<string, KeyRoutePlan | null>();
    for (const { method, path, handler, controller } of nestRoutes(this.discovery)) {
      // As Reflector#getAllAndOverride: the handler's own value, else the controller's.
      const flag = (key: string) =>
        ((Reflect.getMetadata(key, handler) as unknown) ?? (Reflect.getMetadata(key, controller) as unknown)) === true;
      const plan = {
        isPublic: flag(IS_PUBLIC),
        bearer: flag(BEARER_KEY_ACCEPTED),
        legacy: flag(LEGACY_KEY_REQUIRED),
        testModeOnly: flag(TEST_MODE_ONLY),
      };
      const key = `${method} ${path}`;
      plans.set(key, plans.has(key) ? null : plan);
    }
    return plans;
  }
}

/** Express routes are case-insensitive and not strict: the index key is the first two segments, lower-cased. */
function prefixOf(path: string): string {
  const [, first = '', second = ''] = path.split('/', 3);
  return `${first}/${second}`.toLowerCase();
}

/** The first two segments of a template when both are literal text (else undefined: the layer is tried for every path). */
function literalPrefix(template: string): string | undefined {
  const [, first = '', second = '', ...rest] = template.split('/');
  const literal = (s: string) => /^[A-Za-z0-9._~-]*$/.test(s);
  if (!literal(first) || !literal(second) || (second === '' && rest.length > 0)) return undefined;
  // '/v1' alone also matches '/v1/' (not strict): the same key either way.
  return `${first}/${second}`.toLowerCase();
}

/** Express's Route#_handlesMethod: HEAD is served by GET routes. */
function handles(route: ExpressRoute, method: string): boolean {
  if (route.methods._all) return true;
  return Boolean(route.methods[method === 'head' && !route.methods.head ? 'get' : method]);
}
