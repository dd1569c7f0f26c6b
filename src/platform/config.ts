import path from 'node:path';
import { ConfigError, integer, postgresUrl, type Env } from './config-values.ts';
import {
  allocationConfig,
  authThrottleConfig,
  consoleConfig,
  exchangeRatesConfig,
  expensesConfig,
  exportsConfig,
  metricsToken,
  printsConfig,
  webhooksConfig,
  type AllocationConfig,
  type AuthThrottleConfig,
  type ConsoleConfig,
  type ExchangeRatesConfig,
  type ExpensesConfig,
  type ExportsConfig,
  type PrintsConfig,
  type ProcessesConfig,
  type WebhooksConfig,
} from './config-areas.ts';
import { filesConfig, type FilesConfig } from './config-files.ts';
import { donationsConfig, type DonationsConfig } from './config-donations.ts';

export { ConfigError } from './config-values.ts';
export { AUTH_THROTTLE_DEFAULTS, BOI_SDMX_URL, TEST_MAKER_TAX_ID } from './config-areas.ts';
export type {
  AllocationConfig,
  AuthThrottleConfig,
  ConsoleConfig,
  ExchangeRatesConfig,
  ExpensesConfig,
  ExportsConfig,
  PrintsConfig,
  ProcessesConfig,
  WebhooksConfig,
} from './config-areas.ts';
export type { FilesConfig, S3Config } from './config-files.ts';
export type { DonationsConfig } from './config-donations.ts';

export type Environment = 'development' | 'test' | 'production';

/** DATABASE_POOL_SIZE when unset: connections per database pool, per process. */
export const DATABASE_POOL_SIZE_DEFAULT = 10;

export interface Config {
  env: Environment;
  port: number;
  host: string;
  dataDir: string;
  /** Server PostgreSQL for live; null means the embedded engine under dataDir. */
  databaseUrl: string | null;
  sandboxDatabaseUrl: string | null;
  /** DATABASE_POOL_SIZE: connections per database (live and sandbox each) per process, default 10. */
  databasePoolSize: number;
  /** Processes (src/runtime): WEB_CONCURRENCY web workers (0: one process serves and works) and the background worker's niceness. */
  processes: ProcessesConfig;
  logLevel: string;
  /** Requests per minute per key (sliding window). */
  rateLimitPerMinute: number;
  /** Throttle of failed API authentications per client address (src/accounts/auth.ts). */
  authThrottle: AuthThrottleConfig;
  /** Largest JSON body accepted, bytes. */
  bodyLimitBytes: number;
  /** Public base address used in links (emails, share paths), without a trailing slash. */
  publicBaseUrl: string;
  /** Web console (src/console): cookie security and the SMS gateway of the sign-in code. */
  console: ConsoleConfig;
  /** Allocation numbers (src/allocation): the tax authority's Invoices Approval API. */
  allocation: AllocationConfig;
  /** Donation receipts (src/donations): the Tax Authority's digital donation system. */
  donations: DonationsConfig;
  /** Webhook delivery (src/webhooks). */
  webhooks: WebhooksConfig;
  /** Expenses (src/expenses): receipt uploads and OCR. */
  expenses: ExpensesConfig;
  /** OPENFRMT export (src/exports): what A000 says about the software. */
  exports: ExportsConfig;
  /** Signed PDFs, prints, share links and email (src/pdf, src/prints). */
  prints: PrintsConfig;
  /**
   * METRICS_TOKEN: the Bearer token of GET /metrics (src/platform/http/metrics-route.ts), at least 16
   * characters without spaces. Null when unset: /metrics answers 503 `unconfigured`, in every environment.
   */
  metricsToken: string | null;
  /** Exchange rates (src/exchange-rates): the Bank of Israel representative-rate service. */
  exchangeRates: ExchangeRatesConfig;
  /** Stored files (platform/file-store): on disk under DATA_DIR/files, or in an S3-compatible bucket. */
  files: FilesConfig;
}

/** Reads and validates the configuration once; a bad value throws a ConfigError naming it. */
export function loadConfig(env: Env = process.env): Config {
  const rawEnv = env.PINKAS_ENV ?? env.NODE_ENV ?? 'development';
  if (!['development', 'test', 'production'].includes(rawEnv)) {
    throw new ConfigError(env.PINKAS_ENV ? 'PINKAS_ENV' : 'NODE_ENV', `must be development, test or production, got "${rawEnv}"`);
  }
  const databaseUrl = postgresUrl(env, 'DATABASE_URL');
  const sandboxDatabaseUrl = postgresUrl(env, 'SANDBOX_DATABASE_URL');
  if ((databaseUrl === null) !== (sandboxDatabaseUrl === null)) {
    throw new ConfigError(
      databaseUrl ? 'SANDBOX_DATABASE_URL' : 'DATABASE_URL',
      'must be set together with the other one: live and sandbox both use PostgreSQL servers, or both embedded',
    );
  }
  if (databaseUrl && databaseUrl === sandboxDatabaseUrl) {
    throw new ConfigError('SANDBOX_DATABASE_URL', 'must name a different database than DATABASE_URL');
  }
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of fatal, error, warn, info, debug, trace, silent, got "${logLevel}"`);
  }
  // Read again where backups are sealed; checked here so that a bad value stops the start (exit 2).
  backupSealKey(env);
  const port = integer(env, 'PORT', 3000, { min: 0, max: 65535 });
  const host = env.HOST ?? '127.0.0.1';
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicBaseUrl);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL', `is not a URL, got "${publicBaseUrl}"`);
  }
  const dataDir = path.resolve(env.DATA_DIR ?? './data');
  return {
    env: rawEnv as Environment,
    port,
    host,
    dataDir,
    databaseUrl,
    sandboxDatabaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', DATABASE_POOL_SIZE_DEFAULT, { min: 1, max: 1000 }),
    processes: {
      webWorkers: integer(env, 'WEB_CONCURRENCY', 0, { min: 0, max: 64 }),
      backgroundNice: integer(env, 'BACKGROUND_NICE', 10, { min: 0, max: 19 }),
    },
    logLevel,
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 60, { min: 1, max: 10_000_000 }),
    authThrottle: authThrottleConfig(env),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1_048_576, { min: 1024, max: 100 * 1_048_576 }),
    publicBaseUrl,
    console: consoleConfig(env, rawEnv),
    allocation: allocationConfig(env, publicBaseUrl),
    donations: donationsConfig(env),
    webhooks: webhooksConfig(env, rawEnv),
    expenses: expensesConfig(env),
    exports: exportsConfig(env),
    prints: printsConfig(env),
    metricsToken: metricsToken(env),
    exchangeRates: exchangeRatesConfig(env, rawEnv),
    files: filesConfig(env, dataDir),
  };
}

/**
 * BACKUPS. BACKUP_SEAL_KEY: the secret that seals backups (HMAC-SHA256 of their manifest.json), at least 32
 * characters (e.g. `openssl rand -hex 32`). Null when unset: production then refuses to write backups (503
 * `unconfigured`); elsewhere a key is generated once into DATA_DIR/backups/seal.key. Read where a backup is
 * written or restored (src/backups/seal.ts), not at start.
 */
export function backupSealKey(env: Env = process.env): string | null {
  const raw = (env.BACKUP_SEAL_KEY ?? '').trim();
  if (raw === '') return null;
  if (raw.length < 32) throw new ConfigError('BACKUP_SEAL_KEY', `must be at least 32 characters (e.g. openssl rand -hex 32), got ${raw.length}`);
  return raw;
}
