/** The businesses domain's public surface: what other folders may import (ARCHITECTURE.md, "Boundaries"). */
export { createBusinessCaches } from './cache.ts';
export { businessOf, installBusinessGuard } from './guard.ts';
export { decodeLogo } from './logo.ts';
export { nextNumberInSeries } from './numbering.ts';
export { BrandingInput } from './schemas.ts';
export { businessCeilings, type BusinessRecord, getOwnedBusiness, listOwnedBusinesses, type Section46Approval } from './records.ts';
export { type StoredBranding } from './tables.ts';
export { setApprovalStatus, setBusinessPlan } from './service.ts';
export { VAT_REPORTING_PERIODS, type BrandingTemplate, type VatReportingPeriod } from './lists.ts';
