import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { DomainError } from '../errors/domain-error';
import { OutageTracker } from '../outages/outage-tracker';
import { isDatabaseUnavailable } from './pg-errors';

/**
 * The Retry-After of a 503 while the database is unavailable: a PostgreSQL restart or a managed
 * failover takes seconds, so a client coming back after 5 s finds most of them over without adding
 * its retries to a reconnect storm (docs/operations.md).
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** How often a process checks, during an outage, whether the database answers again. */
const PROBE_EVERY_MS = 1_000;

/** 503 serviceUnavailable with Retry-After: the database could not be reached; the same request may be retried. */
export class DatabaseUnavailableError extends DomainError {
  constructor() {
    super(
      'unavailable',
      'serviceUnavailable',
      `The database is unavailable; retry after ${DATABASE_RETRY_AFTER_SECONDS} s (a create with the same Idempotency-Key, so it is applied once)`,
      {},
      { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) },
    );
  }
}

/**
 * This process's database outages (OutageTracker): whoever meets an error that the database being
 * unreachable caused (the problem filter, the scheduler, the queue workers) reports it here, which logs
 * one line when the outage starts and one when a probe finds the database back.
 */
@Injectable()
export class DatabaseOutages implements OnModuleInit, OnModuleDestroy {
  private readonly tracker: OutageTracker;

  constructor(private readonly dataSource: DataSource) {
    this.tracker = new OutageTracker({
      dependency: 'database',
      logger: new Logger(DatabaseOutages.name),
      probe: () => dataSource.query('SELECT 1'),
      probeEveryMs: PROBE_EVERY_MS,
    });
  }

  get isDown(): boolean {
    return this.tracker.isDown;
  }

  /** True, with the outage noted, when `error` is the database being unreachable; false for any other error. */
  noted(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    this.tracker.failed(error);
    return true;
  }

  /**
   * Every connection of the pool is heard for good. pg-pool stops listening to a connection when it
   * hands it out, and TypeORM starts a microtask later: a session ended by the server (57P01 in a
   * fast shutdown) in the same read as its start-up was an unheard 'error' event, which ends the
   * process. Heard here, the outage is noted, and the connection's next statement fails (a 503).
   */
  onModuleInit(): void {
    const pool = (this.dataSource.driver as PostgresDriver).master as Pool | undefined;
    pool?.on('connect', (client) => client.on('error', (error) => this.noted(error)));
    pool?.on('error', (error) => this.noted(error));
  }

  onModuleDestroy(): void {
    this.tracker.stop();
  }
}
