import type { Domain } from '../domain.ts';
import { registerAllocationRoutes } from './routes.ts';
import { registerAllocationRootRoutes } from './callback-routes.ts';
import { startExpiryWorker } from './expiry.ts';
import { ALLOCATION_JOB, allocationJobHandler } from './lifecycle.ts';

/** Allocation numbers (Israel Invoices): connection routes, strict-mode requests, the job, the expiry check. */
export const allocationDomain: Domain = {
  name: 'allocation',
  api: registerAllocationRoutes,
  root: registerAllocationRootRoutes,
  worker: (s) => startExpiryWorker(s),
  jobs: (s) => ({ [ALLOCATION_JOB]: allocationJobHandler(s) }),
};
