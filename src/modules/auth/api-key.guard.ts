import { CanActivate, ExecutionContext, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Response } from 'express';
import { AppConfig } from '../../config/config';
import { APP_CONFIG } from '../../config/config.module';
import { IS_PUBLIC } from '../../platform/http/public.decorator';
import { Metrics } from '../../platform/metrics/metrics';
import { failedAuthLimitError, keyLimitError } from '../../platform/http/rate-limit.errors';
import { clientAddressKey, KeyDecision, rateLimitHeaders } from '../../platform/http/rate-limit.rules';
import { RateLimiter } from '../../platform/http/rate-limit.service';
import { ApiRequest } from '../../platform/http/request-context';
import { RouteFlag } from '../../platform/http/route-flag';
import { InvalidApiKeyError, LegacyKeyRequiredError, SubscriptionInactiveError, TestKeyNotAcceptedError } from './auth.errors';
import { BEARER_KEY_ACCEPTED } from './bearer-key.decorator';
import { LEGACY_KEY_REQUIRED } from './legacy-key.decorator';
import { TEST_MODE_ONLY } from './test-mode-only.decorator';
import { bearerKeyOf, hasApiAccess, hashApiKey, looksLikeApiKey, TEST_MODE_HEADER } from './auth.rules';
import { AuthService, KeyRecord } from './auth.service';

/**
 * The global guard: who is calling, and how often. Every route needs x-api-key (read from
 * the header only) unless marked @Public().
 *
 * The key lookup (PostgreSQL) and the key's rate limit (one Redis round trip, keyed by the
 * key's hash) run at the same time, so an authenticated request waits for one stage, not two.
 * A request refused by authentication gives its count back and carries no limit headers.
 * Failed authentications are counted per client address (req.ip, see TRUST_PROXY); past that
 * limit they are answered 429 and, once this process has seen the address blocked, without
 * a database read, while keys that have been allowed today still get through.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  private readonly publicRoute = new RouteFlag(IS_PUBLIC);
  private readonly legacyRoute = new RouteFlag(LEGACY_KEY_REQUIRED);
  private readonly bearerRoute = new RouteFlag(BEARER_KEY_ACCEPTED);
  private readonly testModeRoute = new RouteFlag(TEST_MODE_ONLY);

  constructor(
    @Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'testHelpersEnabled'>,
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly limiter: RateLimiter,
    private readonly metrics: Metrics,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isPublic(context)) return true;
    const http = context.switchToHttp();
    const req = http.getRequest<ApiRequest>();
    // x-api-key first; the MCP endpoint also reads `Authorization: Bearer` (what MCP clients send).
    const presented =
      req.headers['x-api-key'] ?? (this.bearerRoute.of(this.reflector, context) ? bearerKeyOf(req.headers.authorization) : undefined);
    if (!looksLikeApiKey(presented)) return this.refuse(clientAddressKey(req.ip));

    const keyHash = hashApiKey(presented);
    const [key, decision] = await this.lookUp(keyHash, req);
    if (!key) return this.refuse(clientAddressKey(req.ip), { keyHash, took: decision.took });
    const res = http.getResponse<Response>();
    // Every answer to a test key says so, its refusals included (docs/test-mode.md).
    if (key.test) res.set(TEST_MODE_HEADER, 'true');
    if (!hasApiAccess(key.plan, key.subscriptionStatus)) {
      void this.limiter.giveBack(keyHash, decision.took);
      throw new SubscriptionInactiveError();
    }
    if (this.needsLegacyKey(context) && (key.test || key.kind !== 'legacy')) {
      void this.limiter.giveBack(keyHash, decision.took);
      throw key.test ? new TestKeyNotAcceptedError() : new LegacyKeyRequiredError();
    }
    if (!key.test && !this.config.testHelpersEnabled && this.testModeRoute.of(this.reflector, context)) {
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
    return true;
  }

  private async lookUp(keyHash: Buffer, req: ApiRequest): Promise<[KeyRecord | undefined, KeyDecision]> {
    // The address is only worked out while some address is blocked: the common path skips it.
    const address = this.limiter.anyBlocked() ? clientAddressKey(req.ip) : undefined;
    if (address === undefined || !this.limiter.isBlocked(address)) {
      return Promise.all([this.auth.findKey(keyHash), this.limiter.takeKey(keyHash)]);
    }
    const decision = await this.limiter.takeGuarded(keyHash, address);
    if (decision.outcome === 'addressBlocked') {
      this.metrics.rateLimitRejections.inc({ scope: 'address' });
      throw failedAuthLimitError(decision.windowMsLeft, this.limiter.failureLimit);
    }
    return [await this.auth.findKey(keyHash), decision];
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
