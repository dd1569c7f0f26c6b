/**
 * Every action the audit trail records (platform/audit.ts appendAudit accepts only these). The names
 * are stored in hash-chained rows, so an existing name never changes; adding an action starts here.
 */
export const AUDIT_ACTIONS = [
  // Accounts and keys (the console)
  'account.signed_up',
  'key.minted',
  'key.revoked',
  // Businesses
  'business.create',
  'business.update',
  'business.deactivate',
  'business.reactivate',
  'business.set_status',
  'business.set_plan',
  // Parties
  'party.create',
  'party.update',
  // Documents
  'document.create',
  'document.update',
  'document.delete',
  'document.issue',
  'document.credit_note',
  'document.pdf_rendered',
  'document.print',
  'document.share',
  'document.email',
  'document.email_sent',
  // Allocation numbers and the connection to the tax authority
  'document.allocation_assigned',
  'document.allocation_refused',
  'document.allocation_failed',
  'document.allocation_retry',
  'document.donation_reported',
  'document.donation_report_refused',
  'document.donation_report_failed',
  'document.donation_report_retry',
  'allocation.connect_started',
  'allocation.connected',
  'allocation.disconnected',
  'allocation.connection_expiring',
  // Expenses (`expense.create.<source>`)
  'expense.create.manual',
  'expense.create.upload',
  'expense.create.scan',
  'expense.create.reversal',
  'expense.create.redraft',
  'expense.update',
  'expense.delete',
  'expense.record',
  'expense.reverse',
  // Payments to suppliers (issue 29)
  'supplier_payment.create',
  // Ledger
  'ledger.account.create',
  'ledger.account.update',
  'ledger.entry.create',
  'ledger.entry.reverse',
  'ledger.period.close',
  'ledger.period.reopen',
  // Exchange rates of a business
  'exchange_rate.set',
  'exchange_rate.replace',
  'exchange_rate.delete',
  // Exports and backups
  'export.openfrmt',
  'export.pcn874',
  'backup.create',
  // Stored files: bytes found altered or missing on a read (platform/file-read.ts)
  'file.integrity_failed',
  // Webhooks
  'webhook.create',
  'webhook.update',
  'webhook.delete',
  'webhook.auto_disable',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];
