// The configuration of reporting donation receipts (405) to the Tax Authority's digital donation system
// (src/donations, docs/donations.md): its shape and how it is read from the environment.
import { ConfigError, integer, type Env } from './config-values.ts';

export interface DonationsConfig {
  /**
   * DONATIONS_API_URL + DONATIONS_API_KEY: the live client of the donation system. Null (neither set): the
   * sandbox still reports to the simulator, and live reports stay `pending` saying `unconfigured`.
   */
  live: { baseUrl: string; apiKey: string } | null;
  /** DONATIONS_TIMEOUT_MS: how long one report may take before it counts as a transport failure, default 10 s. */
  timeoutMs: number;
}

export function donationsConfig(env: Env): DonationsConfig {
  const timeoutMs = integer(env, 'DONATIONS_TIMEOUT_MS', 10_000, { min: 10, max: 600_000 });
  const url = (env.DONATIONS_API_URL ?? '').trim();
  const key = (env.DONATIONS_API_KEY ?? '').trim();
  if (url === '' && key === '') return { live: null, timeoutMs };
  if (url === '') throw new ConfigError('DONATIONS_API_URL', 'is required when DONATIONS_API_KEY is set');
  if (key === '') throw new ConfigError('DONATIONS_API_KEY', 'is required when DONATIONS_API_URL is set');
  const baseUrl = url.replace(/\/+$/, '');
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new ConfigError('DONATIONS_API_URL', `is not an http(s) URL, got "${url}"`);
  }
  return { live: { baseUrl, apiKey: key }, timeoutMs };
}
