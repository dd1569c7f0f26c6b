import type { Services } from './platform/http/services.ts';
import type { JobHandlers } from './platform/jobs.ts';
import { JOB_KINDS } from './platform/catalog/jobs.ts';
import { registerAccountRoutes } from './accounts/index.ts';
import { registerBusinessRoutes } from './businesses/index.ts';
import { registerPartyRoutes } from './parties/index.ts';
import { fileSweepWorker, registerFileRoutes } from './files/index.ts';
import { registerExpenseRoutes } from './expenses/index.ts';
import { allocationDomain } from './allocation/index.ts';
import { donationsDomain } from './donations/index.ts';
import { registerConsole, consoleWorker } from './console/index.ts';
import { webhooksDomain } from './webhooks/index.ts';
import { eventsDomain } from './events/index.ts';
import { requestLogDomain } from './request-log/index.ts';
import { registerExportRoutes } from './exports/index.ts';
import { registerReportRoutes } from './reports/index.ts';
import { registerBackupRoutes } from './backups/index.ts';
import { registerDocumentRoutes } from './documents/index.ts';
import { printsDomain } from './prints/index.ts';
import { registerLedgerRoutes } from './ledger/index.ts';
import { registerVatRoutes } from './vat/index.ts';
import { exchangeRatesDomain } from './exchange-rates/index.ts';

export type { Domain, Worker } from './domain.ts';
import type { Domain } from './domain.ts';

export const domains: Domain[] = [
  { name: 'accounts', api: registerAccountRoutes },
  { name: 'businesses', api: registerBusinessRoutes },
  { name: 'parties', api: registerPartyRoutes },
  { name: 'files', api: registerFileRoutes, worker: (s) => fileSweepWorker(s) },
  { name: 'expenses', api: registerExpenseRoutes },
  allocationDomain,
  donationsDomain,
  { name: 'console', root: registerConsole, worker: consoleWorker },
  webhooksDomain,
  eventsDomain,
  requestLogDomain,
  { name: 'exports', api: registerExportRoutes },
  { name: 'reports', api: registerReportRoutes },
  { name: 'backups', api: registerBackupRoutes },
  { name: 'documents', api: registerDocumentRoutes },
  { name: 'ledger', api: registerLedgerRoutes },
  { name: 'vat', api: registerVatRoutes },
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
