/**
 * Which donation system answers a mode: the sandbox always reports to the simulator; live reports to the
 * real client when DONATIONS_API_URL and DONATIONS_API_KEY are set, and otherwise to nobody. Unlike
 * allocation numbers (simulated in live outside production), live never falls back to the simulator: a
 * simulated report number on a live receipt would be a made-up number the donor's credit depends on
 * (decisions.md), so an unconfigured live report stays pending and says `unconfigured`.
 */
import type { Config } from '../platform/config.ts';
import type { Mode } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';
import { DonationSystemClient } from './client.ts';
import type { DonationReporter } from './provider.ts';
import { DonationSimulator } from './simulator.ts';

/** The process's donation-system clients, made once by the composition root (src/services.ts). */
export interface DonationReporters {
  simulator: DonationSimulator;
  /** Null: DONATIONS_API_URL / DONATIONS_API_KEY are not configured. */
  live: DonationSystemClient | null;
}

declare module '../platform/http/services.ts' {
  interface Services {
    donationReporters: DonationReporters;
  }
}

export function createDonationReporters(config: Config): DonationReporters {
  const { live, timeoutMs } = config.donations;
  return { simulator: new DonationSimulator(), live: live ? new DonationSystemClient(live, timeoutMs) : null };
}

/** The reporter of a mode, or null when live has none. */
export function reporterFor(s: Services, mode: Mode): DonationReporter | null {
  return mode === 'sandbox' ? s.donationReporters.simulator : s.donationReporters.live;
}

export const UNCONFIGURED_MESSAGE =
  'reporting donations to the digital donation system needs its client: set DONATIONS_API_URL and DONATIONS_API_KEY for live mode';
