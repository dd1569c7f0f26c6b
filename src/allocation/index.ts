/** The allocation domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { allocationDomain } from './domain.ts';
export { createAllocationProviders } from './providers.ts';
