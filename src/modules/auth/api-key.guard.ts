import { CanActivate, ExecutionContext, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { boundedCache } from '../../platform/cache/bounded-cache';
import { IS_PUBLIC } from '../../platform/http/public.decorator';
import { Metrics } from '../../platform/metrics/metrics';
import { failedAuthLimitError, keyLimitError } from '../../platform/http/rate-limit.errors';
import { clientAddressKey, KeyDecision, rateLimitHeaders } from '../../platform/http/rate-limit.rules';
import { RateLimiter } from '../../platform/http/rate-limit.service';
import { ApiRequest } from '../../platform/http/request-context';
import { RouteFlag } from '../../platform/http/route-flag';
import type { KeyRoutePlan } from './route-plans';
import { InvalidApiKeyError, LegacyKeyRequiredError, SubscriptionInactiveError, TestKeyNotAcceptedError } from './auth.errors';
import { BEARER_KEY_ACCEPTED } from './bearer-key.decorator';
import { LEGACY_KEY_REQUIRED } from './legacy-key.decorator';
import { TEST_MODE_ONLY } from './test-mode-only.decorator';
import { bearerKeyOf, hasApiAccess, hashApiKey, looksLikeApiKey, TEST_MODE_HEADER } from './auth.rules';
import { AuthService, KeyRecord } from './auth.service';

/**
 * Who is calling, and how often. Every route needs x-api-key (read from the header only) unless
 * marked @Public(). `authenticate` runs in the entry middleware for every route RoutePlans planned
 * (before the body is read and before Nest's pipeline, so floods of bad keys are refused cheaply);
 * as the global guard it lets those requests through and checks any route without a plan.
 *
 * The key lookup (PostgreSQL) and the key's rate limit (one Redis round trip, keyed by the
 * key's hash) run at the same time, so an authenticated request waits for one stage, not two.
 * A request refused by authentication gives its count back and carries no limit headers.
 * Failed authentications are counted per client address (req.ip, see TRUST_PROXY); past that
 * limit they are answered 429 and, once this process has seen the address blocked, without
 * a database read, while keys that have been allowed today still get through.
 */
const MAX_SERVED_KEYS = 10_000;

@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly publicRoute = new RouteFlag(IS_PUBLIC);
  private readonly legacyRoute = new RouteFlag(LEGACY_KEY_REQUIRED);
  private readonly bearerRoute = new RouteFlag(BEARER_KEY_ACCEPTED);
  private readonly testModeRoute = new RouteFlag(TEST_MODE_ONLY);
  /** Hashes of keys served while some address was blocked: looked up at once from a blocked address (lookUp). */
  private readonly served = boundedCache<string, true>(MAX_SERVED_KEYS);

  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'testHelpersEnabled'>,
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly limiter: RateLimiter,
    private readonly metrics: Metrics,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const http = context.switchToHttp();
    const req = http.getRequest<ApiRequest>();
    // The entry middleware has already checked the key with this route's plan (RoutePlans).
    if (req.keyChecked || this.isPublic(context)) return true;
    const plan = {
      isPublic: false,
      bearer: this.bearerRoute.of(this.reflector, context),
      legacy: this.needsLegacyKey(context),
      testModeOnly: this.testModeRoute.of(this.reflector, context),
    };
    return this.authenticate(req, http.getResponse<Response>(), plan).then(() => true);
  }

  /**
   * Authenticates and rate limits a request to a non-public route, setting req.caller and the limit
   * headers, or throws the 401 / 403 / 429. Called by the entry middleware with the route's plan
   * (before the body is read and before Nest's pipeline), and by canActivate for a route it did not plan.
   */
  async authenticate(req: ApiRequest, res: Response, plan: KeyRoutePlan): Promise<void> {
    // x-api-key first; the MCP endpoint also reads `Authorization: Bearer` (what MCP clients send).
    const presented = req.headers['x-api-key'] ?? (plan.bearer ? bearerKeyOf(req.headers.authorization) : undefined);
    if (!looksLikeApiKey(presented)) return this.refuse(clientAddressKey(req.ip));

    const keyHash = hashApiKey(presented);
    const [key, decision] = await this.lookUp(keyHash, req);
    if (!key) return this.refuse(clientAddressKey(req.ip), { keyHash, took: decision.took });
    // Every answer to a test key says so, its refusals included (docs/test-mode.md).
    if (key.test) res.set(TEST_MODE_HEADER, 'true');
    if (!hasApiAccess(key.plan, key.subscriptionStatus)) {
      void this.limiter.giveBack(keyHash, decision.took);
      throw new SubscriptionInactiveError();
    }
    if (plan.legacy && (key.test || key.kind !== 'legacy')) {
      void this.limiter.giveBack(keyHash, decision.took);
      throw key.test ? new TestKeyNotAcceptedError() : new LegacyKeyRequiredError();
    }
    if (!key.test && !this.config.testHelpersEnabled && plan.testModeOnly) {
      void this.limiter.giveBack(keyHash, decision.took);
      throw new NotFoundException(); // a live key's answer there: the route does not exist for it
    }
    this.auth.noteUse(key, new Date());
    req.caller = { accountId: key.accountId, testMode: key.test, apiKeyId: key.apiKeyId, keyKind: key.kind };
    res.set(rateLimitHeaders(decision, this.limiter.keyLimits));
    if (decision.outcome !== 'allowed') {
      this.metrics.rateLimitRejections.inc({ scope: 'key' });
      throw keyLimitError(decision, this.limiter.keyLimits);
    }
    req.keyChecked = true;
    if (this.limiter.anyBlocked()) this.noteServed(keyHash);
  }

  private async lookUp(keyHash: Buffer, req: ApiRequest): Promise<[KeyRecord | undefined, KeyDecision]> {
    // The address is only worked out while some address is blocked: the common path skips it.
    const address = this.limiter.anyBlocked() ? clientAddressKey(req.ip) : undefined;
    if (address === undefined || !this.limiter.isBlocked(address)) {
      return Promise.all([this.auth.findKey(keyHash), this.limiter.takeKey(keyHash)]);
    }
    // A key this process served lately is looked up beside the limiter's answer (one stage, not two, for a
    // valid client sharing its address with a flood); any other only once Redis lets it through. Either way the
    // database and Redis decide, as above: the set is a hint for when to ask, never an answer.
    const served = this.served.has(keyHash.toString('base64url'));
    const early = served ? this.auth.findKey(keyHash) : undefined;
    early?.catch(() => undefined); // awaited below unless the address is refused first
    const decision = await this.limiter.takeGuarded(keyHash, address);
    if (decision.outcome === 'addressBlocked') {
      this.metrics.rateLimitRejections.inc({ scope: 'address' });
      throw failedAuthLimitError(decision.windowMsLeft, this.limiter.failureLimit);
    }
    return [await (early ?? this.auth.findKey(keyHash)), decision];
  }

  /** Notes a key this process has just served (bounded: the least recently served go first). */
  private noteServed(keyHash: Buffer): void {
    this.served.set(keyHash.toString('base64url'), true);
  }

  private async refuse(address: string, presented?: { keyHash: Buffer; took: KeyDecision['took'] }): Promise<never> {
    const failure = await this.limiter.takeFailure(address, presented);
    if (failure.allowed) throw new InvalidApiKeyError();
    this.metrics.rateLimitRejections.inc({ scope: 'address' });
    throw failedAuthLimitError(failure.msLeft, this.limiter.failureLimit);
  }

  /** Routes marked @LegacyKeyRequired() (the legacy API) refuse Platform keys with 403 legacyKeyRequired. */
  private needsLegacyKey(context: ExecutionContext): boolean {
    return this.legacyRoute.of(this.reflector, context);
  }

  private isPublic(context: ExecutionContext): boolean {
    return this.publicRoute.of(this.reflector, context);
  }
}
