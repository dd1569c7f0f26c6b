/** The donations domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { createDonationReporters } from './providers.ts';
export { donationReportNumberOf } from './store.ts';
