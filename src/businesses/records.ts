// A business as stored and as answered: its record, its ceilings, its view, and the readers by id and owner.
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { iso, isoDay, isoOrNull, prepared, query, queryOne } from '../platform/db/sql.ts';
import { notFound } from '../platform/errors.ts';
import { columnList } from '../platform/db/row-reader.ts';
import { businesses, type StoredBranding } from './tables.ts';

import type { Services } from '../platform/http/services.ts';
import { accountLimitsOf, plansOf } from '../accounts/index.ts';

import { metadataCondition, metadataOf, type Metadata } from '../platform/metadata.ts';

import type { BusinessView } from './schemas.ts';
import type { DealerType } from './dealer-types.ts';
import type { Bookkeeping, VatReportingPeriod } from './lists.ts';

export const NEW_BUSINESSES_PER_KEY_PER_DAY = 50;

/**
 * An ngo's approval under section 46 of the Income Tax Ordinance: its donors get a tax credit for
 * donations receipted (405) on the days it is valid, both included (YYYY-MM-DD).
 */
export interface Section46Approval {
  number: string;
  validFrom: string;
  validTo: string;
}

export interface BusinessRecord {
  id: string;
  accountId: string;
  createdByKeyId: string;
  name: string;
  taxId: string;
  dealerType: DealerType;
  address: string | null;
  phone: string | null;
  email: string | null;
  defaultVatRateBp: number | null;
  requireAllocation: boolean;
  /** Effective: the stored choice, or the dealer type's default (double for company and ngo). */
  bookkeeping: Bookkeeping;
  vatReportingPeriod: VatReportingPeriod;
  branding: StoredBranding;
  section46Approval: Section46Approval | null;
  approvalStatus: 'approved' | 'pending' | 'suspended';
  planKey: string | null;
  metadata: Metadata;
  deactivatedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The row's version (xmin) when read by getOwnedBusiness: the issue call refuses a business changed since. */
  version: string | null;
}

export const EMPTY_BRANDING: StoredBranding = { logoRef: null, accentColor: null, tagline: null, website: null, footerText: null, template: 'classic' };

export const defaultBookkeeping = (d: DealerType): Bookkeeping => (d === 'company' || d === 'ngo' ? 'double' : 'single');

export function toBusinessRecord(r: Record<string, unknown>): BusinessRecord {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    createdByKeyId: String(r.created_by_key_id),
    name: String(r.name),
    taxId: String(r.tax_id),
    dealerType: r.dealer_type as DealerType,
    address: (r.address as string | null) ?? null,
    phone: (r.phone as string | null) ?? null,
    email: (r.email as string | null) ?? null,
    defaultVatRateBp: r.default_vat_rate_bp === null ? null : Number(r.default_vat_rate_bp),
    requireAllocation: Boolean(r.require_allocation),
    bookkeeping: (r.bookkeeping as Bookkeeping | null) ?? defaultBookkeeping(r.dealer_type as DealerType),
    vatReportingPeriod: (r.vat_reporting_period as VatReportingPeriod | undefined) ?? 'monthly',
    branding: { ...EMPTY_BRANDING, ...(r.branding as Partial<StoredBranding>) },
    section46Approval: section46Of(r),
    approvalStatus: r.approval_status as BusinessRecord['approvalStatus'],
    planKey: (r.plan_key as string | null) ?? null,
    metadata: metadataOf(r.metadata),
    deactivatedAt: isoOrNull(r.deactivated_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    version: r.row_version == null ? null : String(r.row_version),
  };
}

function section46Of(r: Record<string, unknown>): Section46Approval | null {
  if (r.section46_approval_number == null) return null;
  return { number: String(r.section46_approval_number), validFrom: isoDay(r.section46_valid_from), validTo: isoDay(r.section46_valid_to) };
}

export interface Ceilings {
  maxDocsPerMonth: number | null;
  maxExpensesPerMonth: number | null;
}

/**
 * Monthly ceilings in force: the account's override wins over the plan; no plan means unlimited.
 * `account`: the account's own limits when the caller has them already (a request: read with its key).
 */
export async function ceilingsFor(
  s: Services,
  accountId: string,
  planKeys: (string | null)[],
  account?: Pick<Ceilings, 'maxDocsPerMonth' | 'maxExpensesPerMonth'>,
): Promise<Map<string | null, Ceilings>> {
  // Both from the control plane's caches: no round trip once read (src/accounts/caches.ts).
  account ??= await accountLimitsOf(s, accountId);
  const plans = planKeys.some((k) => k !== null) ? await plansOf(s) : [];
  const out = new Map<string | null, Ceilings>();
  for (const key of planKeys) {
    const plan = plans.find((p) => p.key === key);
    out.set(key, {
      maxDocsPerMonth: account.maxDocsPerMonth ?? plan?.maxDocsPerMonth ?? null,
      maxExpensesPerMonth: account.maxExpensesPerMonth ?? plan?.maxExpensesPerMonth ?? null,
    });
  }
  return out;
}

export async function businessCeilings(s: Services, b: BusinessRecord, account?: Pick<Ceilings, 'maxDocsPerMonth' | 'maxExpensesPerMonth'>): Promise<Ceilings> {
  // With the account's limits at hand and the plans cached, nothing is read.
  return (await ceilingsFor(s, b.accountId, [b.planKey], account)).get(b.planKey)!;
}

async function numberingOf(ex: Executor, businessIds: string[]): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>(businessIds.map((id) => [id, {}]));
  if (businessIds.length === 0) return out;
  const rows = await query<{ business_id: string; doc_type: number; start_number: number }>(
    ex,
    sql`SELECT business_id, doc_type, start_number FROM document_counters WHERE business_id IN ${businessIds}`,
  );
  for (const r of rows) out.get(r.business_id)![String(r.doc_type)] = Number(r.start_number);
  return out;
}

export function businessView(b: BusinessRecord, ceilings: Ceilings, numbering: Record<string, number>): BusinessView {
  return {
    id: b.id,
    name: b.name,
    taxId: b.taxId,
    dealerType: b.dealerType,
    address: b.address,
    phone: b.phone,
    email: b.email,
    defaultVatRateBp: b.defaultVatRateBp,
    requireAllocation: b.requireAllocation,
    bookkeeping: b.bookkeeping,
    vatReportingPeriod: b.vatReportingPeriod,
    branding: b.branding,
    section46Approval: b.section46Approval,
    approvalStatus: b.approvalStatus,
    planKey: b.planKey,
    maxDocsPerMonth: ceilings.maxDocsPerMonth,
    maxExpensesPerMonth: ceilings.maxExpensesPerMonth,
    numbering,
    metadata: b.metadata,
    deactivatedAt: b.deactivatedAt,
    createdAt: b.createdAt,
  };
}

export async function viewOf(s: Services, ex: Executor, b: BusinessRecord): Promise<BusinessView> {
  const [ceilings, numbering] = await Promise.all([businessCeilings(s, b), numberingOf(ex, [b.id])]);
  return businessView(b, ceilings, numbering.get(b.id)!);
}

export async function viewsOf(s: Services, ex: Executor, accountId: string, bs: BusinessRecord[]): Promise<BusinessView[]> {
  const ceilings = await ceilingsFor(s, accountId, [...new Set(bs.map((b) => b.planKey))]);
  const numbering = await numberingOf(
    ex,
    bs.map((b) => b.id),
  );
  return bs.map((b) => businessView(b, ceilings.get(b.planKey)!, numbering.get(b.id)!));
}

/** Reads a business of the account; another account's business is "not found", never "forbidden". */
export async function getOwnedBusiness(ex: Executor, accountId: string, id: string, forUpdate = false): Promise<BusinessRecord> {
  const business = await findOwnedBusiness(ex, accountId, id, forUpdate);
  if (!business) throw notFound('business');
  return business;
}

export async function findOwnedBusiness(ex: Executor, accountId: string, id: string, forUpdate = false): Promise<BusinessRecord | undefined> {
  const r = await queryOne<Record<string, unknown>>(
    ex,
    prepared(
      'owned_business',
      forUpdate
        ? sql`SELECT ${columnList(businesses)}, xmin::text AS row_version FROM businesses WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`
        : sql`SELECT ${columnList(businesses)}, xmin::text AS row_version FROM businesses WHERE id = ${id} AND account_id = ${accountId}`,
    ),
  );
  return r ? toBusinessRecord(r) : undefined;
}

export async function getBusinessById(ex: Executor, id: string): Promise<BusinessRecord | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT * FROM businesses WHERE id = ${id}`);
  return r ? toBusinessRecord(r) : undefined;
}

export async function listOwnedBusinesses(ex: Executor, accountId: string, metadata?: string[]): Promise<BusinessRecord[]> {
  const byMetadata = metadataCondition(metadata) ?? sql`true`;
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT * FROM businesses WHERE account_id = ${accountId} AND ${byMetadata} ORDER BY created_at, id`,
  );
  return rows.map(toBusinessRecord);
}

/** True once any document of the business was issued (its tax id and dealer type are then locked). */
export async function hasIssuedDocuments(ex: Executor, businessId: string): Promise<boolean> {
  const r = await queryOne(ex, sql`SELECT 1 FROM document_counters WHERE business_id = ${businessId} AND last_number IS NOT NULL LIMIT 1`);
  return r !== undefined;
}
