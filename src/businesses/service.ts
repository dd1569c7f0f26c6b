import { sql } from 'drizzle-orm';
import type { Executor, Mode } from '../platform/db/engine.ts';
import { iso, isoOrNull, query, queryOne } from '../platform/db/sql.ts';
import { conflict, notFound, validation } from '../platform/errors.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import { storeFile } from '../platform/files.ts';
import { newId } from '../platform/ids.ts';
import { israelDate } from '../platform/clock.ts';
import { subject, takeDailyAllowance } from '../platform/usage.ts';
import type { Services } from '../platform/http/services.ts';
import { getAccount } from '../accounts/accounts.ts';
import { listPlans } from '../accounts/plans.ts';
import { normalizeTaxId } from '../platform/tax-id.ts';
import { textProblemOf } from '../openfrmt/limits.ts';
import { metadataCondition, metadataOf, metadataToStore, type Metadata } from '../platform/metadata.ts';
import { decodeLogo } from './logo.ts';
import type { BusinessCreateBody, BusinessPatchBody, BusinessView, DealerType } from './schemas.ts';

export const NEW_BUSINESSES_PER_KEY_PER_DAY = 50;

export interface StoredBranding {
  logoRef: { fileId: string; sha256: string; mime: string } | null;
  accentColor: string | null;
  tagline: string | null;
  website: string | null;
  footerText: string | null;
  template: 'classic' | 'stripe';
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
  bookkeeping: 'single' | 'double';
  vatReportingPeriod: 'monthly' | 'bimonthly';
  branding: StoredBranding;
  approvalStatus: 'approved' | 'pending' | 'suspended';
  planKey: string | null;
  metadata: Metadata;
  deactivatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const EMPTY_BRANDING: StoredBranding = { logoRef: null, accentColor: null, tagline: null, website: null, footerText: null, template: 'classic' };

export const defaultBookkeeping = (d: DealerType): 'single' | 'double' => (d === 'company' || d === 'ngo' ? 'double' : 'single');

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
    bookkeeping: (r.bookkeeping as 'single' | 'double' | null) ?? defaultBookkeeping(r.dealer_type as DealerType),
    vatReportingPeriod: (r.vat_reporting_period as 'monthly' | 'bimonthly' | undefined) ?? 'monthly',
    branding: { ...EMPTY_BRANDING, ...(r.branding as Partial<StoredBranding>) },
    approvalStatus: r.approval_status as BusinessRecord['approvalStatus'],
    planKey: (r.plan_key as string | null) ?? null,
    metadata: metadataOf(r.metadata),
    deactivatedAt: isoOrNull(r.deactivated_at),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
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
  const control = s.databases.live.db;
  account ??= await getAccount(control, accountId);
  const plans = planKeys.some((k) => k !== null) ? await listPlans(control) : [];
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
  // With no plan and the account's limits at hand, nothing is read.
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
  const r = await queryOne<Record<string, unknown>>(
    ex,
    forUpdate
      ? sql`SELECT * FROM businesses WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`
      : sql`SELECT * FROM businesses WHERE id = ${id} AND account_id = ${accountId}`,
  );
  if (!r) throw notFound('business');
  return toBusinessRecord(r);
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

/**
 * The business's name and address are A000/1018 and 1019 of every export: they must fit those
 * fields as written to the file (folded to ISO-8859-8, e.g. ₪ is three characters there); the
 * schema bounds them as sent.
 */
function checkCarried(body: { name?: string | null; address?: string | null }): void {
  for (const [field, carried] of [
    ['name', 'businessName'],
    ['address', 'businessStreet'],
  ] as const) {
    const v = body[field];
    const problem = v ? textProblemOf(v.trim(), carried) : null;
    if (problem) throw validation(`body.${field}`, problem);
  }
}

function checkedTaxId(raw: string): string {
  const r = normalizeTaxId(raw);
  if (!r.ok) throw validation('body.taxId', r.problem);
  return r.value;
}

async function mergeBranding(
  tx: Executor,
  at: Date,
  businessId: string,
  current: StoredBranding,
  input: BusinessCreateBody['branding'],
): Promise<StoredBranding> {
  if (!input) return current;
  const next: StoredBranding = { ...current };
  if (input.logo === null) next.logoRef = null;
  else if (input.logo !== undefined) {
    const logo = decodeLogo(input.logo);
    const file = await storeFile(tx, at, { businessId, bytes: logo.bytes, mime: logo.mime, name: logo.name });
    next.logoRef = { fileId: file.id, sha256: file.sha256, mime: file.mime };
  }
  for (const k of ['accentColor', 'tagline', 'website', 'footerText'] as const) {
    if (input[k] !== undefined) next[k] = input[k] ?? null;
  }
  if (input.accentColor) next.accentColor = input.accentColor.toUpperCase();
  if (input.template !== undefined) next.template = input.template;
  return next;
}

async function setNumbering(tx: Executor, businessId: string, numbering: Record<string, number> | undefined): Promise<void> {
  if (!numbering) return;
  for (const [docType, start] of Object.entries(numbering)) {
    const row = await queryOne<{ last_number: number | null }>(
      tx,
      sql`SELECT last_number FROM document_counters WHERE business_id = ${businessId} AND doc_type = ${Number(docType)} FOR UPDATE`,
    );
    if (row && row.last_number !== null) {
      throw conflict(`numbering.${docType}: documents of type ${docType} were already issued; the series cannot be restarted`);
    }
    await tx.execute(
      sql`INSERT INTO document_counters(business_id, doc_type, start_number) VALUES (${businessId}, ${Number(docType)}, ${start})
          ON CONFLICT (business_id, doc_type) DO UPDATE SET start_number = EXCLUDED.start_number`,
    );
  }
}

export async function createBusiness(s: Services, mode: Mode, actor: Actor & { keyId: string; accountId: string }, body: BusinessCreateBody) {
  const now = s.clock.now();
  checkCarried(body);
  const taxId = checkedTaxId(body.taxId);
  const id = newId('biz', now.getTime());
  return s.databases[mode].db.transaction(async (tx) => {
    await takeDailyAllowance(tx, {
      day: israelDate(now),
      subject: subject.key(actor.keyId),
      metric: 'businesses_created',
      limit: NEW_BUSINESSES_PER_KEY_PER_DAY,
      what: 'new businesses per key',
    });
    await tx.execute(
      sql`INSERT INTO businesses(id, account_id, created_by_key_id, name, tax_id, dealer_type, address, phone, email,
                                 default_vat_rate_bp, require_allocation, bookkeeping, vat_reporting_period, branding, metadata, approval_status, created_at, updated_at)
          VALUES (${id}, ${actor.accountId}, ${actor.keyId}, ${body.name.trim()}, ${taxId}, ${body.dealerType}, ${body.address ?? null},
                  ${body.phone ?? null}, ${body.email ?? null}, ${body.defaultVatRateBp ?? null}, ${body.requireAllocation ?? false},
                  ${body.bookkeeping ?? null}, ${body.vatReportingPeriod ?? 'monthly'},
                  ${JSON.stringify(EMPTY_BRANDING)}::jsonb, ${metadataToStore(body.metadata)}::jsonb, 'approved', ${now.toISOString()}, ${now.toISOString()})`,
    );
    const branding = await mergeBranding(tx, now, id, EMPTY_BRANDING, body.branding);
    await tx.execute(sql`UPDATE businesses SET branding = ${JSON.stringify(branding)}::jsonb WHERE id = ${id}`);
    await setNumbering(tx, id, body.numbering);
    const created = await getOwnedBusiness(tx, actor.accountId, id);
    const view = await viewOf(s, tx, created);
    await appendAudit(tx, now, actor, { businessId: id, action: 'business.create', entityType: 'business', entityId: id, after: view });
    return view;
  });
}

export async function patchBusiness(s: Services, mode: Mode, actor: Actor & { accountId: string }, id: string, body: BusinessPatchBody) {
  const now = s.clock.now();
  return s.databases[mode].db.transaction(async (tx) => {
    const current = await getOwnedBusiness(tx, actor.accountId, id, true);
    const before = await viewOf(s, tx, current);
    checkCarried(body);
    const taxId = body.taxId === undefined ? current.taxId : checkedTaxId(body.taxId);
    const dealerType = body.dealerType ?? current.dealerType;
    if ((taxId !== current.taxId || dealerType !== current.dealerType) && (await hasIssuedDocuments(tx, id))) {
      throw conflict(`${taxId !== current.taxId ? 'taxId' : 'dealerType'}: the business has issued documents, so its tax id and dealer type cannot change`);
    }
    const branding = await mergeBranding(tx, now, id, current.branding, body.branding);
    const pick = <K extends keyof BusinessPatchBody>(k: K, cur: unknown) => (body[k] === undefined ? cur : body[k]);
    await tx.execute(
      sql`UPDATE businesses SET
            name = ${body.name?.trim() ?? current.name}, tax_id = ${taxId}, dealer_type = ${dealerType},
            address = ${pick('address', current.address) as string | null}, phone = ${pick('phone', current.phone) as string | null},
            email = ${pick('email', current.email) as string | null},
            default_vat_rate_bp = ${pick('defaultVatRateBp', current.defaultVatRateBp) as number | null},
            require_allocation = ${pick('requireAllocation', current.requireAllocation) as boolean},
            bookkeeping = ${body.bookkeeping === undefined ? sql`bookkeeping` : sql`${body.bookkeeping}`},
            vat_reporting_period = ${body.vatReportingPeriod ?? current.vatReportingPeriod},
            branding = ${JSON.stringify(branding)}::jsonb, metadata = ${metadataToStore(body.metadata, current.metadata)}::jsonb,
            updated_at = ${now.toISOString()}
          WHERE id = ${id}`,
    );
    await setNumbering(tx, id, body.numbering);
    const after = await viewOf(s, tx, await getOwnedBusiness(tx, actor.accountId, id));
    await appendAudit(tx, now, actor, { businessId: id, action: 'business.update', entityType: 'business', entityId: id, before, after });
    return after;
  });
}

function standingEvent(b: BusinessRecord, previousStatus: string) {
  const active = b.deactivatedAt === null;
  return {
    businessId: b.id,
    approvalStatus: b.approvalStatus,
    previousStatus,
    active,
    writesOpen: active && b.approvalStatus === 'approved',
  };
}

/** Deactivate (pause all writes) or reactivate; each change of standing records `business.status_changed`. */
export async function setActive(s: Services, mode: Mode, actor: Actor & { accountId: string }, id: string, active: boolean) {
  const now = s.clock.now();
  return s.databases[mode].db.transaction(async (tx) => {
    const current = await getOwnedBusiness(tx, actor.accountId, id, true);
    const isActive = current.deactivatedAt === null;
    if (isActive !== active) {
      await tx.execute(sql`UPDATE businesses SET deactivated_at = ${active ? null : now.toISOString()}, updated_at = ${now.toISOString()} WHERE id = ${id}`);
      const after = await getOwnedBusiness(tx, actor.accountId, id);
      await appendAudit(tx, now, actor, {
        businessId: id,
        action: active ? 'business.reactivate' : 'business.deactivate',
        entityType: 'business',
        entityId: id,
        before: { deactivatedAt: current.deactivatedAt },
        after: { deactivatedAt: after.deactivatedAt },
      });
      await recordEvent(tx, now, {
        event: 'business.status_changed',
        accountId: current.accountId,
        businessId: id,
        data: standingEvent(after, current.approvalStatus),
      });
      return viewOf(s, tx, after);
    }
    return viewOf(s, tx, current);
  });
}

/** The operator moves approvalStatus (CLI); the change is audited and announced. */
export async function setApprovalStatus(s: Services, mode: Mode, id: string, status: BusinessRecord['approvalStatus']) {
  const now = s.clock.now();
  return s.databases[mode].db.transaction(async (tx) => {
    const r = await queryOne<Record<string, unknown>>(tx, sql`SELECT * FROM businesses WHERE id = ${id} FOR UPDATE`);
    if (!r) throw notFound('business');
    const current = toBusinessRecord(r);
    if (current.approvalStatus === status) return current;
    await tx.execute(sql`UPDATE businesses SET approval_status = ${status}, updated_at = ${now.toISOString()} WHERE id = ${id}`);
    const after = { ...current, approvalStatus: status };
    await appendAudit(
      tx,
      now,
      { accountId: null, keyId: null },
      {
        businessId: id,
        action: 'business.set_status',
        entityType: 'business',
        entityId: id,
        before: { approvalStatus: current.approvalStatus },
        after: { approvalStatus: status },
      },
    );
    await recordEvent(tx, now, {
      event: 'business.status_changed',
      accountId: current.accountId,
      businessId: id,
      data: standingEvent(after, current.approvalStatus),
    });
    return after;
  });
}

export async function setBusinessPlan(s: Services, mode: Mode, id: string, planKey: string | null): Promise<BusinessRecord> {
  const now = s.clock.now();
  return s.databases[mode].db.transaction(async (tx) => {
    const r = await queryOne<Record<string, unknown>>(tx, sql`SELECT * FROM businesses WHERE id = ${id} FOR UPDATE`);
    if (!r) throw notFound('business');
    await tx.execute(sql`UPDATE businesses SET plan_key = ${planKey}, updated_at = ${now.toISOString()} WHERE id = ${id}`);
    await appendAudit(
      tx,
      now,
      { accountId: null, keyId: null },
      {
        businessId: id,
        action: 'business.set_plan',
        entityType: 'business',
        entityId: id,
        before: { planKey: r.plan_key ?? null },
        after: { planKey },
      },
    );
    return toBusinessRecord({ ...r, plan_key: planKey });
  });
}
