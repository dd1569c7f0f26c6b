import type { Services } from './platform/http/services.ts';
import type { JobHandlers } from './platform/jobs.ts';
import { JOB_KINDS } from './platform/catalog/jobs.ts';
// Each domain's domain.ts (its routes and background work) is imported here only: another folder meets a domain
// through its index.ts, the service surface, without loading its HTTP layer.
import { accountsDomain } from './accounts/domain.ts';
import { businessesDomain } from './businesses/domain.ts';
import { partiesDomain } from './parties/domain.ts';
import { filesDomain } from './files/domain.ts';
import { expensesDomain } from './expenses/domain.ts';
import { allocationDomain } from './allocation/domain.ts';
import { donationsDomain } from './donations/domain.ts';
import { consoleDomain } from './console/domain.ts';
import { webhooksDomain } from './webhooks/domain.ts';
import { eventsDomain } from './events/domain.ts';
import { requestLogDomain } from './request-log/domain.ts';
import { exportsDomain } from './exports/domain.ts';
import { reportsDomain } from './reports/domain.ts';
import { backupsDomain } from './backups/domain.ts';
import { documentsDomain } from './documents/domain.ts';
import { printsDomain } from './prints/domain.ts';
import { ledgerDomain } from './ledger/domain.ts';
import { vatDomain } from './vat/domain.ts';
import { exchangeRatesDomain } from './exchange-rates/domain.ts';

export type { Domain, Worker } from './domain.ts';
import type { Domain } from './domain.ts';

export const domains: Domain[] = [
  accountsDomain,
  businessesDomain,
  partiesDomain,
  filesDomain,
  expensesDomain,
  allocationDomain,
  donationsDomain,
  consoleDomain,
  webhooksDomain,
  eventsDomain,
  requestLogDomain,
  exportsDomain,
  reportsDomain,
  backupsDomain,
  documentsDomain,
  ledgerDomain,
  vatDomain,
  printsDomain,
  exchangeRatesDomain,
];

/**
 * Every job handler of every domain: exactly one for each job of the catalog. A job with none or
 * two is a programming error, refused at start (and by test/unit/catalogs.test.ts).
 */
export function allJobHandlers(s: Services): JobHandlers {
  const found: Partial<JobHandlers> = {};
  for (const d of domains) {
    const own = d.jobs?.(s) ?? {};
    for (const kind of Object.keys(own) as (keyof JobHandlers)[]) {
      if (found[kind]) throw new Error(`job ${kind} has two handlers (domain ${d.name} is the second)`);
      Object.assign(found, { [kind]: own[kind] });
    }
  }
  const missing = JOB_KINDS.filter((kind) => !found[kind]);
  if (missing.length > 0) throw new Error(`no domain handles the job(s) ${missing.join(', ')}`);
  return found as JobHandlers;
}
