/** The closed lists of allocation, each once: the tables and the types read them. Pure. */

/** Who granted a connection: the tax authority, or the sandbox's simulated consent screen. */
export const ALLOCATION_PROVIDERS = ['ita', 'simulator'] as const;
export type AllocationProviderKind = (typeof ALLOCATION_PROVIDERS)[number];

/** How a consent flow ended. */
export const CONSENT_OUTCOMES = ['connected', 'denied', 'failed'] as const;
export type ConsentOutcomeKind = (typeof CONSENT_OUTCOMES)[number];
