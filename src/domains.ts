import type { Services } from './platform/http/services.ts';
import type { JobHandlers } from './platform/jobs.ts';
import { JOB_KINDS } from './platform/catalog/jobs.ts';
import { registerAccountRoutes } from './accounts/routes.ts';
import { registerBusinessRoutes } from './businesses/routes.ts';
import { registerPartyRoutes } from './parties/routes.ts';
import { registerFileRoutes } from './files/routes.ts';
import { registerExpenseRoutes } from './expenses/routes.ts';
import { allocationDomain } from './allocation/domain.ts';
import { registerConsole } from './console/plugin.ts';
import { consoleWorker } from './console/prune.ts';
import { webhooksDomain } from './webhooks/domain.ts';
import { registerExportRoutes } from './exports/routes.ts';
import { registerReportRoutes } from './reports/routes.ts';
import { registerBackupRoutes } from './backups/routes.ts';
import { registerDocumentRoutes } from './documents/routes.ts';
import { printsDomain } from './prints/domain.ts';
import { registerLedgerRoutes } from './ledger/routes.ts';
import { registerVatRoutes } from './vat/routes.ts';
import { exchangeRatesDomain } from './exchange-rates/domain.ts';

export type { Domain, Worker } from './domain.ts';
import type { Domain } from './domain.ts';

export const domains: Domain[] = [
  { name: 'accounts', api: registerAccountRoutes },
  { name: 'businesses', api: registerBusinessRoutes },
  { name: 'parties', api: registerPartyRoutes },
  { name: 'files', api: registerFileRoutes },
  { name: 'expenses', api: registerExpenseRoutes },
  allocationDomain,
  { name: 'console', root: registerConsole, worker: consoleWorker },
  webhooksDomain,
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
