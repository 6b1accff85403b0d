import { DynamicModule, INestApplication, Type } from '@nestjs/common';
import request from 'supertest';
import TestAgent from 'supertest/lib/agent';
import { DataSource } from 'typeorm';
import { AppConfig, loadConfig } from '../../src/config/config';
import { appEnvironment } from './test-env';
import { createHttpApp } from '../../src/http-app';
import { AccountsService } from '../../src/modules/auth/accounts.service';
import { Plan } from '../../src/modules/auth/account.entity';
import type { PropertyResponse } from '../../src/modules/properties/property.response';
import { createProperty } from './properties';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  /** Unauthenticated client. */
  http: TestAgent;
  close(): Promise<void>;
}

/**
 * Boots the real API (same factory as src/main.ts) against the run's database and Redis.
 * `extraModules` mounts test-only modules (e.g. test/support/probe.module.ts) beside the app's; `port` 0 is any free one.
 */
export async function startApp(
  overrides: Record<string, string> = {},
  extraModules: Array<Type | DynamicModule> = [],
  port = 0,
): Promise<TestApp> {
  const config = loadConfig(appEnvironment(overrides));
  const app = await createHttpApp(config, extraModules);
  await app.listen(port, '127.0.0.1');
  return { app, config, http: request(app.getHttpServer()), close: () => app.close() };
}

export interface TestAccount {
  accountId: string;
  apiKeyId: string;
  apiKey: string;
}

export async function createAccount(app: TestApp, options: { plan?: Plan; active?: boolean; name?: string } = {}): Promise<TestAccount> {
  return app.app.get(AccountsService).createAccount({
    name: options.name ?? 'Test account',
    plan: options.plan ?? 'pro',
    active: options.active ?? true,
  });
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** A client that sends the account's key on every call: `api.get('/v1/events')`. */
export function clientFor(app: TestApp, account: Pick<TestAccount, 'apiKey'>) {
  const call = (method: Method) => (path: string) => request(app.app.getHttpServer())[method](path).set('x-api-key', account.apiKey);
  return { get: call('get'), post: call('post'), patch: call('patch'), put: call('put'), delete: call('delete') };
}

export type ApiClient = ReturnType<typeof clientFor>;

/** An account with its client and a second account with its own: the pair every tenancy test needs (another account's resource is a 404). */
export interface TwoAccounts {
  account: TestAccount;
  api: ApiClient;
  other: TestAccount;
  otherApi: ApiClient;
}

export async function twoAccounts(app: TestApp): Promise<TwoAccounts> {
  const [account, other] = await Promise.all([createAccount(app), createAccount(app)]);
  return { account, api: clientFor(app, account), other, otherApi: clientFor(app, other) };
}

/** A suite's app and two accounts (TwoAccounts), and their properties when asked for. */
export interface Suite extends TwoAccounts, AppSuite {
  /** The first account's property (`property` option). */
  property: PropertyResponse;
  /** The second account's property (`otherProperty` option). */
  otherProperty: PropertyResponse;
}

export interface SuiteOptions {
  /** Config overrides for startApp. */
  env?: Record<string, string>;
  /** Create a property for the first account, with these overrides (true: validProperty as it is). */
  property?: boolean | Record<string, unknown>;
  otherProperty?: boolean;
}

/** A suite's app and its database, for suites that create their own accounts (appSuite). */
export interface AppSuite {
  t: TestApp;
  db: DataSource;
}

/**
 * The app as hooks of the calling describe: started before its tests (with `env` overrides), closed after
 * them. Read the fields inside tests and hooks (they are set once the beforeAll has run): `s.t`, `s.db`.
 */
export function appSuite<S extends AppSuite = AppSuite>(env?: Record<string, string>, more?: (s: S) => Promise<void>): S {
  const s = {} as S;
  beforeAll(async () => {
    const t = await startApp(env);
    Object.assign(s, { t, db: t.app.get(DataSource) });
    await more?.(s);
  });
  afterAll(() => s.t?.close());
  return s;
}

/**
 * The scaffolding most suites share: appSuite, and two accounts (and, when asked, a property each)
 * created before its tests. `s.api.get(…)` inside tests and hooks.
 */
export function suite(options: SuiteOptions = {}): Suite {
  return appSuite<Suite>(options.env, async (s) => {
    Object.assign(s, await twoAccounts(s.t));
    const propertyOverrides = typeof options.property === 'object' ? options.property : {};
    if (options.property) s.property = await createProperty(s.api, propertyOverrides);
    if (options.otherProperty) s.otherProperty = await createProperty(s.otherApi);
  });
}
