/** The donations domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { donationsDomain } from './domain.ts';
export { createDonationReporters } from './providers.ts';
export { donationReportNumberOf } from './store.ts';
