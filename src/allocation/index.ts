/** The allocation domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { createAllocationProviders } from './providers.ts';
