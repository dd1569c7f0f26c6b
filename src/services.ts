import type { Config } from './platform/config.ts';
import type { Clock } from './platform/clock.ts';
import type { Logger } from './platform/logger.ts';
import type { Database, Mode } from './platform/db/engine.ts';
import { soleProcess, type Services } from './platform/http/services.ts';
import { MemoryRateLimiter, PostgresRateLimiter } from './platform/rate-limit.ts';
import { RequestCounter } from './platform/usage.ts';
import { invalidationChannels } from './platform/db/invalidation.ts';
import { createAccountCaches } from './accounts/index.ts';
import { createBusinessCaches } from './businesses/index.ts';
import { createAllocationProviders } from './allocation/index.ts';
import { createDonationReporters } from './donations/index.ts';
import { createExchangeRateProvider } from './exchange-rates/index.ts';
import { createWebhookSender } from './webhooks/index.ts';
import { RequestLogBuffer } from './request-log/index.ts';
import { ConsoleSecretStore } from './console/index.ts';
import { createPdfRenderer } from './prints/index.ts';
import { createFileStores } from './platform/file-store/stores.ts';

/**
 * The composition root: every process-wide dependency is made here, once, and passed down in
 * Services (the domains declare their own fields on it). The rate limiter follows the deployment:
 * in memory for a sole process (no round trip per request), in the live database when several
 * processes share the databases (a supervised server's workers, or servers sharing a PostgreSQL server).
 */
export function createServices(config: Config, clock: Clock, logger: Logger, databases: Record<Mode, Database>): Services {
  const rateLimiter = soleProcess({ config, databases })
    ? new MemoryRateLimiter(config.rateLimitPerMinute)
    : new PostgresRateLimiter(databases.live, config.rateLimitPerMinute);
  // Made here, listening only once a serving process starts them (runtime/roles.ts startWeb).
  const invalidation = invalidationChannels(databases, logger);
  const fileStores = createFileStores(config.files);
  return {
    config,
    clock,
    logger,
    databases,
    invalidation,
    accountCaches: createAccountCaches(databases.live, invalidation.live, logger),
    businessCaches: createBusinessCaches(invalidation),
    rateLimiter,
    requestCounter: new RequestCounter(databases),
    requestLog: new RequestLogBuffer(databases, logger),
    allocationProviders: createAllocationProviders(config, clock, databases.live),
    donationReporters: createDonationReporters(config),
    exchangeRateProvider: createExchangeRateProvider(config),
    webhookSender: createWebhookSender(config.webhooks),
    consoleSecrets: new ConsoleSecretStore(databases.live),
    pdfRenderer: createPdfRenderer(config.prints.workers),
    fileStores,
  };
}
