/**
 * Which tax authority answers a mode: the sandbox always talks to the simulator; live talks to
 * the real ITA client when ITA_CLIENT_ID is set, to the simulator outside production otherwise,
 * and in production without configuration to nobody (503 `unconfigured`, never a made-up number).
 */
import type { Mode } from '../platform/db/engine.ts';
import type { Services } from '../platform/http/services.ts';
import { unconfigured } from '../platform/errors.ts';
import { AllocationSimulator } from './simulator.ts';
import { ItaClient } from './ita-client.ts';
import type { AllocationProvider, ConsentProvider } from './provider.ts';

export type FullProvider = AllocationProvider & ConsentProvider;

const simulators = new WeakMap<Services, AllocationSimulator>();
const clients = new WeakMap<Services, ItaClient>();

export function simulatorOf(s: Services): AllocationSimulator {
  let sim = simulators.get(s);
  if (!sim) {
    sim = new AllocationSimulator(s.clock, { timeoutMs: s.config.allocation.timeoutMs, publicBaseUrl: s.config.publicBaseUrl });
    simulators.set(s, sim);
  }
  return sim;
}

/** The provider of a mode, or null when live has none (production without ITA configuration). */
export function providerFor(s: Services, mode: Mode): FullProvider | null {
  if (mode === 'sandbox') return simulatorOf(s);
  const ita = s.config.allocation.ita;
  if (ita) {
    let client = clients.get(s);
    if (!client) {
      client = new ItaClient(ita, s.config.allocation.timeoutMs, s.clock, s.databases.live);
      clients.set(s, client);
    }
    return client;
  }
  return s.config.env === 'production' ? null : simulatorOf(s);
}

export const UNCONFIGURED_MESSAGE =
  'allocation numbers need the tax authority client: set ITA_CLIENT_ID, ITA_CLIENT_SECRET (and ITA_REDIRECT_URI) for live mode';

export function requireProvider(s: Services, mode: Mode): FullProvider {
  const p = providerFor(s, mode);
  if (!p) throw unconfigured(UNCONFIGURED_MESSAGE);
  return p;
}
