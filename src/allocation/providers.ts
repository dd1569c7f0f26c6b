/**
 * Which tax authority answers a mode: the sandbox always talks to the simulator; live talks to
 * the real ITA client when ITA_CLIENT_ID is set, to the simulator outside production otherwise,
 * and in production without configuration to nobody (503 `unconfigured`, never a made-up number).
 */
import type { Config } from '../platform/config.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database, Mode } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';
import { unconfigured } from '../platform/errors.ts';
import { AllocationSimulator } from './simulator.ts';
import { ItaClient } from './ita-client.ts';
import type { AllocationProvider, ConsentProvider } from './provider.ts';

export type FullProvider = AllocationProvider & ConsentProvider;

/** The process's tax-authority clients, made once by the composition root (src/services.ts). */
export interface AllocationProviders {
  simulator: AllocationSimulator;
  /** Null: ITA_CLIENT_ID is not configured. */
  ita: ItaClient | null;
}

declare module '../platform/http/services.ts' {
  interface Services {
    allocationProviders: AllocationProviders;
  }
}

export function createAllocationProviders(config: Config, clock: Clock, live: Database): AllocationProviders {
  const { timeoutMs, ita } = config.allocation;
  return {
    simulator: new AllocationSimulator(clock, { timeoutMs, publicBaseUrl: config.publicBaseUrl }),
    ita: ita ? new ItaClient(ita, timeoutMs, clock, live) : null,
  };
}

export function simulatorOf(s: Services): AllocationSimulator {
  return s.allocationProviders.simulator;
}

/** The provider of a mode, or null when live has none (production without ITA configuration). */
export function providerFor(s: Services, mode: Mode): FullProvider | null {
  if (mode === 'sandbox') return simulatorOf(s);
  if (s.allocationProviders.ita) return s.allocationProviders.ita;
  return s.config.env === 'production' ? null : simulatorOf(s);
}

export const UNCONFIGURED_MESSAGE =
  'allocation numbers need the tax authority client: set ITA_CLIENT_ID, ITA_CLIENT_SECRET (and ITA_REDIRECT_URI) for live mode';

export function requireProvider(s: Services, mode: Mode): FullProvider {
  const p = providerFor(s, mode);
  if (!p) throw unconfigured(UNCONFIGURED_MESSAGE);
  return p;
}
