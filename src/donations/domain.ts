import type { Domain } from '../domain.ts';
import { DONATION_JOB, donationJobHandler } from './lifecycle.ts';
import { registerDonationRoutes } from './routes.ts';

/** Donation receipts' reports to the digital donation system: the job after issue, the report's route. */
export const donationsDomain: Domain = {
  name: 'donations',
  api: registerDonationRoutes,
  jobs: (s) => ({ [DONATION_JOB]: donationJobHandler(s) }),
};
