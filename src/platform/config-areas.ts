// The configuration of each area (exchange rates, auth throttle, exports, expenses, webhooks, allocation, console,
// prints, metrics): its shape and how it is read from the environment. config.ts assembles them.
import { availableParallelism } from 'node:os';
import { boolean, ConfigError, integer, readableFile, type Env } from './config-values.ts';
import { normalizeTaxId } from './tax-id.ts';
export interface ExchangeRatesConfig {
  /**
   * EXCHANGE_RATES_URL: base of the Bank of Israel SDMX service (docs/exchange-rates.md). Default: the real
   * service in development and production, none in test (tests never reach the network); `off` disables it.
   * Null: a document in a foreign currency must carry its own rate (503 `unconfigured` otherwise).
   */
  baseUrl: string | null;
  /** EXCHANGE_RATES_TIMEOUT_MS: deadline of one request to the service, default 10 s. */
  timeoutMs: number;
}

/** The Bank of Israel's public SDMX service (series database), no key needed. */
export const BOI_SDMX_URL = 'https://edge.boi.gov.il/FusionEdgeServer/sdmx/v2';

export function exchangeRatesConfig(env: Env, environment: string): ExchangeRatesConfig {
  const timeoutMs = integer(env, 'EXCHANGE_RATES_TIMEOUT_MS', 10_000, { min: 50, max: 120_000 });
  const raw = (env.EXCHANGE_RATES_URL ?? '').trim();
  if (raw === 'off') return { baseUrl: null, timeoutMs };
  if (raw === '') return { baseUrl: environment === 'test' ? null : BOI_SDMX_URL, timeoutMs };
  const baseUrl = raw.replace(/\/+$/, '');
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError('EXCHANGE_RATES_URL', `is not an http(s) URL (or "off"), got "${raw}"`);
  }
  return { baseUrl, timeoutMs };
}

export interface ProcessesConfig {
  /** WEB_CONCURRENCY: HTTP worker processes under a supervisor; 0 (default) runs everything in one process. */
  webWorkers: number;
  /** BACKGROUND_NICE: the niceness (0–19) of the background worker process, so rendering yields the CPU to requests. */
  backgroundNice: number;
}

export interface AuthThrottleConfig {
  /**
   * AUTH_FAILURES_PER_MINUTE: failed authentications (missing, malformed, unknown, revoked or expired
   * key) one address may make within a sliding minute; past it the address's bad keys answer 429
   * `rate_limited` with Retry-After (a valid key still passes). Default 20 (1 to 100000).
   */
  failuresPerMinute: number;
}

/** Defaults of the auth-failure throttle (issue 16), overridable by the variables above. */
export const AUTH_THROTTLE_DEFAULTS = { failuresPerMinute: 20 } as const;

export function authThrottleConfig(env: Env): AuthThrottleConfig {
  return {
    failuresPerMinute: integer(env, 'AUTH_FAILURES_PER_MINUTE', AUTH_THROTTLE_DEFAULTS.failuresPerMinute, { min: 1, max: 100_000 }),
  };
}

export interface ExportsConfig {
  /** OPENFRMT_SOFTWARE_REG_NO: the Tax Authority software registration number (A000/1006), up to 8 digits; default empty (written as zeros until registered). */
  softwareRegNo: string;
  /**
   * OPENFRMT_MAKER_TAX_ID: the software maker's VAT number (A000/1009, mandatory), checksum-validated and
   * normalized to 9 digits. Empty when unset: an export is then refused (503 `unconfigured`), never written
   * with zeros. With PINKAS_ENV=test only, it defaults to TEST_MAKER_TAX_ID.
   */
  makerTaxId: string;
  /** OPENFRMT_MAKER_NAME: the software maker's name (A000/1010); default "pinkas". */
  makerName: string;
}

/**
 * The maker VAT number the test environment uses when OPENFRMT_MAKER_TAX_ID is unset: the textbook
 * sample id of the check-digit rule (valid, obviously not a real maker). Test runs produce no files
 * for the Tax Authority, and a fixed value keeps the golden export files stable; development and
 * production get no default.
 */
export const TEST_MAKER_TAX_ID = '123456782';

export function exportsConfig(env: Env): ExportsConfig {
  const digits = (name: string, max: number): string => {
    const v = (env[name] ?? '').trim();
    if (v !== '' && !new RegExp(`^\\d{1,${max}}$`).test(v)) throw new ConfigError(name, `must be up to ${max} digits, got "${v}"`);
    return v;
  };
  const mode = env.PINKAS_ENV ?? env.NODE_ENV ?? 'development';
  const rawMaker = (env.OPENFRMT_MAKER_TAX_ID ?? '').trim();
  let makerTaxId = '';
  if (rawMaker !== '') {
    const checked = normalizeTaxId(rawMaker);
    if (!checked.ok) throw new ConfigError('OPENFRMT_MAKER_TAX_ID', `is not a valid Israeli tax id (${checked.problem}), got "${rawMaker}"`);
    makerTaxId = checked.value;
  } else if (mode === 'test') makerTaxId = TEST_MAKER_TAX_ID;
  return { softwareRegNo: digits('OPENFRMT_SOFTWARE_REG_NO', 8), makerTaxId, makerName: env.OPENFRMT_MAKER_NAME || 'pinkas' };
}

export interface ExpensesConfig {
  /** UPLOAD_MAX_BYTES: largest receipt file accepted by upload and scan (413 `too_large` beyond), default 10 MB. */
  uploadMaxBytes: number;
  /** OCR over an OpenAI-compatible chat-completions API; null (scan answers 503 `unconfigured`) unless OCR_BASE_URL, OCR_API_KEY and OCR_MODEL are all set. */
  ocr: { baseUrl: string; apiKey: string; model: string; timeoutMs: number } | null;
}

export interface WebhooksConfig {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: local development and tests only (refused in production); default false. */
  allowPrivateTargets: boolean;
  /** WEBHOOK_CA_FILE: PEM of extra trusted CAs (tests, private PKI); null: the system roots only. */
  caFile: string | null;
  /** WEBHOOK_TIMEOUT_MS: deadline of one delivery attempt (connect to end of the answer), default 10 s. */
  timeoutMs: number;
  /** WEBHOOK_POLL_MS: how often the dispatcher of each process looks for work, default 1 s. */
  pollMs: number;
}

export interface AllocationConfig {
  /** The real ITA client; null: sandbox (always) and live outside production use the simulator, live in production answers 503. */
  ita: {
    oauthBaseUrl: string;
    apiBaseUrl: string;
    clientId: string;
    clientSecret: string;
    redirectUri: string;
    scope: string;
    softwareNumber: number;
  } | null;
  /** How long one approval request may take before it counts as a transport failure, ms. */
  timeoutMs: number;
  /** How long before the refresh token expires the `allocation.connection_expiring` event fires, ms. */
  expiryWarningMs: number;
}

export interface ConsoleConfig {
  /** Secure cookies: on in production unless CONSOLE_SECURE_COOKIES=false (local HTTP only). */
  secureCookies: boolean;
  /** Twilio-compatible Messages API; null: codes go to the server log (refused in production). */
  sms: { baseUrl: string; accountSid: string; authToken: string; from: string } | null;
}

export function metricsToken(env: Env): string | null {
  const raw = (env.METRICS_TOKEN ?? '').trim();
  if (raw === '') return null;
  if (raw.length < 16 || /\s/.test(raw))
    throw new ConfigError('METRICS_TOKEN', `must be at least 16 characters without spaces (e.g. openssl rand -hex 24), got ${raw.length}`);
  return raw;
}

export function allocationConfig(env: Env, publicBaseUrl: string): AllocationConfig {
  const url = (name: string, fallback: string) => {
    const v = (env[name] || fallback).replace(/\/+$/, '');
    try {
      new URL(v);
    } catch {
      throw new ConfigError(name, `is not a URL, got "${v}"`);
    }
    return v;
  };
  let ita: AllocationConfig['ita'] = null;
  if (env.ITA_CLIENT_ID) {
    if (!env.ITA_CLIENT_SECRET) throw new ConfigError('ITA_CLIENT_SECRET', 'is required when ITA_CLIENT_ID is set');
    ita = {
      oauthBaseUrl: url('ITA_OAUTH_BASE_URL', 'https://openapi.taxes.gov.il/shaam/tsandbox'),
      apiBaseUrl: url('ITA_API_BASE_URL', 'https://ita-api.taxes.gov.il/shaam/tsandbox'),
      clientId: env.ITA_CLIENT_ID,
      clientSecret: env.ITA_CLIENT_SECRET,
      // The ITA accepts exactly one registered redirect URI, compared case-sensitively.
      redirectUri: url('ITA_REDIRECT_URI', `${publicBaseUrl}/ita/callback`),
      scope: env.ITA_SCOPE || 'scope',
      softwareNumber: integer(env, 'ITA_SOFTWARE_NUMBER', 99_999_999, { min: 1, max: 99_999_999 }),
    };
  }
  return {
    ita,
    timeoutMs: integer(env, 'ITA_TIMEOUT_MS', 10_000, { min: 10, max: 600_000 }),
    expiryWarningMs: integer(env, 'ITA_EXPIRY_WARNING_HOURS', 72, { min: 1, max: 24 * 60 }) * 3_600_000,
  };
}

export function consoleConfig(env: Env, environment: string): ConsoleConfig {
  const secureCookies = boolean(env, 'CONSOLE_SECURE_COOKIES', environment === 'production');
  const sid = env.TWILIO_ACCOUNT_SID ?? '';
  let sms: ConsoleConfig['sms'] = null;
  if (sid) {
    for (const name of ['TWILIO_AUTH_TOKEN', 'SMS_FROM']) {
      if (!env[name]) throw new ConfigError(name, 'is required when TWILIO_ACCOUNT_SID is set');
    }
    const baseUrl = (env.TWILIO_BASE_URL || 'https://api.twilio.com').replace(/\/+$/, '');
    try {
      new URL(baseUrl);
    } catch {
      throw new ConfigError('TWILIO_BASE_URL', `is not a URL, got "${baseUrl}"`);
    }
    sms = { baseUrl, accountSid: sid, authToken: env.TWILIO_AUTH_TOKEN!, from: env.SMS_FROM! };
  }
  return { secureCookies, sms };
}

export function expensesConfig(env: Env): ExpensesConfig {
  const uploadMaxBytes = integer(env, 'UPLOAD_MAX_BYTES', 10 * 1_048_576, { min: 1024, max: 50 * 1_048_576 });
  const timeoutMs = integer(env, 'OCR_TIMEOUT_MS', 60_000, { min: 50, max: 600_000 });
  const set = ['OCR_BASE_URL', 'OCR_API_KEY', 'OCR_MODEL'].filter((n) => env[n]);
  if (set.length === 0) return { uploadMaxBytes, ocr: null };
  const missing = ['OCR_BASE_URL', 'OCR_API_KEY', 'OCR_MODEL'].find((n) => !env[n]);
  if (missing) throw new ConfigError(missing, `is required when ${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} set`);
  const baseUrl = env.OCR_BASE_URL!.replace(/\/+$/, '');
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError('OCR_BASE_URL', `is not an http(s) URL, got "${baseUrl}"`);
  }
  return { uploadMaxBytes, ocr: { baseUrl, apiKey: env.OCR_API_KEY!, model: env.OCR_MODEL!, timeoutMs } };
}

export function webhooksConfig(env: Env, environment: string): WebhooksConfig {
  const allow = boolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', false);
  if (allow && environment === 'production') {
    throw new ConfigError('WEBHOOK_ALLOW_PRIVATE_TARGETS', 'is for local development and tests; it cannot be true in production');
  }
  return {
    allowPrivateTargets: allow,
    caFile: env.WEBHOOK_CA_FILE ? readableFile('WEBHOOK_CA_FILE', env.WEBHOOK_CA_FILE) : null,
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, { min: 50, max: 60_000 }),
    pollMs: integer(env, 'WEBHOOK_POLL_MS', 1_000, { min: 50, max: 60_000 }),
  };
}

export interface PrintsConfig {
  /** PDF_SIGNING_P12_PATH + PDF_SIGNING_P12_PASSWORD: the certificate that signs PDFs. Null: a self-signed one is generated once into DATA_DIR/signing (development, test, sandbox); live in production does not render without it. */
  signingP12: { path: string; password: string } | null;
  /** PDF_ALLOCATION_WAIT_MS: how long after issue the render waits for a pending allocation number, default 60 s. */
  allocationWaitMs: number;
  /** PDF_DONATION_REPORT_WAIT_MS: how long after issue the render of a 405 waits for its donation report number, default 60 s. */
  donationReportWaitMs: number;
  /** PDF_PENDING_RETRY_AFTER_SECONDS: Retry-After of 409 pdf_pending, default 2. */
  pendingRetryAfterSeconds: number;
  /** PDF_WORKERS: threads that render and sign PDFs, default one fewer than the cores (at least 1); 0 renders on the event loop's thread. */
  workers: number;
  /** PDF_YIELD_MS: how far PDFs may fall behind while the process answers a burst of requests (they render one at a time meanwhile), default 30 s; 0 never yields. */
  yieldMs: number;
  /** EMAIL_PER_MINUTE: calls of the email endpoint per minute per key (sliding window), default 10. */
  emailPerMinute: number;
  /** SMTP_HOST, SMTP_PORT (default 587, 465 with SMTP_SECURE=true), SMTP_USER, SMTP_PASSWORD, SMTP_FROM, SMTP_SECURE. Null (email answers 503 unconfigured) unless SMTP_HOST is set. */
  smtp: { host: string; port: number; secure: boolean; user: string | null; password: string | null; from: string } | null;
}

export function printsConfig(env: Env): PrintsConfig {
  const p12Path = env.PDF_SIGNING_P12_PATH ?? '';
  const signingP12 = p12Path === '' ? null : { path: readableFile('PDF_SIGNING_P12_PATH', p12Path), password: env.PDF_SIGNING_P12_PASSWORD ?? '' };
  const secure = boolean(env, 'SMTP_SECURE', false);
  let smtp: PrintsConfig['smtp'] = null;
  if (env.SMTP_HOST) {
    const from = env.SMTP_FROM ?? '';
    if (!/^[^@\s<>]+@[^@\s<>]+$/.test(from.replace(/^.*<([^>]+)>\s*$/, '$1'))) {
      throw new ConfigError('SMTP_FROM', `must be an address (name@example.com or "Name <name@example.com>") when SMTP_HOST is set, got "${from}"`);
    }
    if (Boolean(env.SMTP_USER) !== Boolean(env.SMTP_PASSWORD))
      throw new ConfigError(env.SMTP_USER ? 'SMTP_PASSWORD' : 'SMTP_USER', 'must be set together with the other one');
    smtp = {
      host: env.SMTP_HOST,
      port: integer(env, 'SMTP_PORT', secure ? 465 : 587, { min: 1, max: 65535 }),
      secure,
      user: env.SMTP_USER || null,
      password: env.SMTP_PASSWORD || null,
      from,
    };
  }
  return {
    signingP12,
    allocationWaitMs: integer(env, 'PDF_ALLOCATION_WAIT_MS', 60_000, { min: 0, max: 86_400_000 }),
    donationReportWaitMs: integer(env, 'PDF_DONATION_REPORT_WAIT_MS', 60_000, { min: 0, max: 86_400_000 }),
    pendingRetryAfterSeconds: integer(env, 'PDF_PENDING_RETRY_AFTER_SECONDS', 2, { min: 1, max: 3600 }),
    // One core is left to the event loop and PostgreSQL: on 2 cores one thread renders ~250 documents a second.
    workers: integer(env, 'PDF_WORKERS', Math.max(1, availableParallelism() - 1), { min: 0, max: 64 }),
    yieldMs: integer(env, 'PDF_YIELD_MS', 30_000, { min: 0, max: 3_600_000 }),
    emailPerMinute: integer(env, 'EMAIL_PER_MINUTE', 10, { min: 1, max: 10_000 }),
    smtp,
  };
}
