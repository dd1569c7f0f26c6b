import { sql } from 'drizzle-orm';
import type { Executor, Mode } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { insertInto } from '../platform/db/insert-values.ts';
import { businesses } from './tables.ts';
import { conflict, notFound, validation } from '../platform/errors.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { recordEvent } from '../platform/outbox.ts';
import { putBytes, recordFile, type StoredObject } from '../platform/files.ts';
import { newId } from '../platform/ids.ts';
import { israelDate } from '../platform/clock.ts';
import { subject, takeDailyAllowance } from '../platform/usage.ts';
import type { Services } from '../platform/http/services.ts';
import { normalizeTaxId } from '../platform/tax-id.ts';
import { textProblemOf } from '../openfrmt/index.ts';
import { metadataToStore } from '../platform/metadata.ts';
import { decodeLogo } from './logo.ts';
import { setNumbering } from './numbering.ts';
import type { BusinessCreateBody, BusinessPatchBody } from './schemas.ts';
import { seenByCache } from './cache.ts';

import {
  NEW_BUSINESSES_PER_KEY_PER_DAY,
  getOwnedBusiness,
  hasIssuedDocuments,
  toBusinessRecord,
  viewOf,
  type BusinessRecord,
  type Section46Approval,
  EMPTY_BRANDING,
} from './records.ts';
import type { StoredBranding } from './tables.ts';

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

/**
 * The section 46 approval as stored: only an ngo (a public institution) holds one, and it is valid from a
 * day to a day after it (decisions.md: a 405 is issued on a day inside them).
 */
function checkedSection46(value: BusinessCreateBody['section46Approval'], dealerType: BusinessRecord['dealerType']): Section46Approval | null {
  if (!value) return null;
  if (dealerType !== 'ngo') throw validation('body.section46Approval', `only an ngo holds a section 46 approval; this business is ${dealerType}`);
  if (value.validFrom > value.validTo) throw validation('body.section46Approval.validTo', `is before validFrom (${value.validFrom})`);
  return { number: value.number.trim(), validFrom: value.validFrom, validTo: value.validTo };
}

/** A logo given in a body, decoded and put into the file store before the transaction that records it. */
interface PutLogo {
  object: StoredObject;
  mime: string;
  name: string;
}

async function putLogo(s: Services, mode: Mode, input: BusinessCreateBody['branding']): Promise<PutLogo | null> {
  if (!input?.logo) return null;
  const logo = decodeLogo(input.logo);
  return { object: await putBytes(s.fileStores[mode].current, logo.bytes), mime: logo.mime, name: logo.name };
}

async function mergeBranding(
  tx: Executor,
  {
    at,
    businessId,
    current,
    input,
    logo,
  }: { at: Date; businessId: string; current: StoredBranding; input: BusinessCreateBody['branding']; logo: PutLogo | null },
): Promise<StoredBranding> {
  if (!input) return current;
  const next: StoredBranding = { ...current };
  if (input.logo === null) next.logoRef = null;
  else if (logo) {
    const file = await recordFile(tx, at, { businessId, ...logo });
    next.logoRef = { fileId: file.id, sha256: file.sha256, mime: file.mime };
  }
  for (const k of ['accentColor', 'tagline', 'website', 'footerText'] as const) {
    if (input[k] !== undefined) next[k] = input[k] ?? null;
  }
  if (input.accentColor) next.accentColor = input.accentColor.toUpperCase();
  if (input.template !== undefined) next.template = input.template;
  return next;
}

export async function createBusiness(s: Services, mode: Mode, actor: Actor & { keyId: string; accountId: string }, body: BusinessCreateBody) {
  const now = s.clock.now();
  checkCarried(body);
  const taxId = checkedTaxId(body.taxId);
  const section46 = checkedSection46(body.section46Approval, body.dealerType);
  const id = newId('biz', now.getTime());
  const logo = await putLogo(s, mode, body.branding);
  return s.databases[mode].db.transaction(async (tx) => {
    await takeDailyAllowance(tx, {
      day: israelDate(now),
      subject: subject.key(actor.keyId),
      metric: 'businesses_created',
      limit: NEW_BUSINESSES_PER_KEY_PER_DAY,
      what: 'new businesses per key',
    });
    await tx.execute(
      insertInto(businesses, {
        id,
        accountId: actor.accountId,
        createdByKeyId: actor.keyId,
        name: body.name.trim(),
        taxId,
        dealerType: body.dealerType,
        address: body.address ?? null,
        phone: body.phone ?? null,
        email: body.email ?? null,
        defaultVatRateBp: body.defaultVatRateBp ?? null,
        requireAllocation: body.requireAllocation ?? false,
        bookkeeping: body.bookkeeping ?? null,
        vatReportingPeriod: body.vatReportingPeriod ?? 'monthly',
        section46ApprovalNumber: section46?.number ?? null,
        section46ValidFrom: section46?.validFrom ?? null,
        section46ValidTo: section46?.validTo ?? null,
        branding: EMPTY_BRANDING,
        metadata: body.metadata ?? {},
        approvalStatus: 'approved',
        createdAt: now,
        updatedAt: now,
      }),
    );
    const branding = await mergeBranding(tx, { at: now, businessId: id, current: EMPTY_BRANDING, input: body.branding, logo });
    await tx.execute(sql`UPDATE businesses SET branding = ${JSON.stringify(branding)}::jsonb WHERE id = ${id}`);
    await setNumbering(tx, id, body.numbering);
    const created = await getOwnedBusiness(tx, actor.accountId, id);
    const view = await viewOf(s, tx, created);
    await appendAudit(tx, { at: now, actor }, { businessId: id, action: 'business.create', entityType: 'business', entityId: id, after: view });
    return view;
  });
}

export async function patchBusiness(
  s: Services,
  { mode, actor, id, body }: { mode: Mode; actor: Actor & { accountId: string }; id: string; body: BusinessPatchBody },
) {
  const now = s.clock.now();
  const logo = await putLogo(s, mode, body.branding);
  return seenByCache(
    s,
    mode,
    s.databases[mode].db.transaction(async (tx) => {
      const current = await getOwnedBusiness(tx, actor.accountId, id, true);
      const before = await viewOf(s, tx, current);
      checkCarried(body);
      const taxId = body.taxId === undefined ? current.taxId : checkedTaxId(body.taxId);
      const dealerType = body.dealerType ?? current.dealerType;
      if ((taxId !== current.taxId || dealerType !== current.dealerType) && (await hasIssuedDocuments(tx, id))) {
        throw conflict(`${taxId !== current.taxId ? 'taxId' : 'dealerType'}: the business has issued documents, so its tax id and dealer type cannot change`);
      }
      // An approval kept from before must still fit the dealer type; a new one replaces it, null clears it.
      const section46 = checkedSection46(body.section46Approval === undefined ? current.section46Approval : body.section46Approval, dealerType);
      const branding = await mergeBranding(tx, { at: now, businessId: id, current: current.branding, input: body.branding, logo });
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
            section46_approval_number = ${section46?.number ?? null}, section46_valid_from = ${section46?.validFrom ?? null},
            section46_valid_to = ${section46?.validTo ?? null},
            branding = ${JSON.stringify(branding)}::jsonb, metadata = ${metadataToStore(body.metadata, current.metadata)}::jsonb,
            updated_at = ${now.toISOString()}
          WHERE id = ${id}`,
      );
      await setNumbering(tx, id, body.numbering);
      const after = await viewOf(s, tx, await getOwnedBusiness(tx, actor.accountId, id));
      await appendAudit(tx, { at: now, actor }, { businessId: id, action: 'business.update', entityType: 'business', entityId: id, before, after });
      return after;
    }),
  );
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
export async function setActive(s: Services, { mode, actor, id, active }: { mode: Mode; actor: Actor & { accountId: string }; id: string; active: boolean }) {
  const now = s.clock.now();
  return seenByCache(
    s,
    mode,
    s.databases[mode].db.transaction(async (tx) => {
      const current = await getOwnedBusiness(tx, actor.accountId, id, true);
      const isActive = current.deactivatedAt === null;
      if (isActive !== active) {
        await tx.execute(sql`UPDATE businesses SET deactivated_at = ${active ? null : now.toISOString()}, updated_at = ${now.toISOString()} WHERE id = ${id}`);
        const after = await getOwnedBusiness(tx, actor.accountId, id);
        await appendAudit(
          tx,
          { at: now, actor },
          {
            businessId: id,
            action: active ? 'business.reactivate' : 'business.deactivate',
            entityType: 'business',
            entityId: id,
            before: { deactivatedAt: current.deactivatedAt },
            after: { deactivatedAt: after.deactivatedAt },
          },
        );
        await recordEvent(tx, now, {
          event: 'business.status_changed',
          accountId: current.accountId,
          businessId: id,
          data: standingEvent(after, current.approvalStatus),
        });
        return viewOf(s, tx, after);
      }
      return viewOf(s, tx, current);
    }),
  );
}

/** The operator moves approvalStatus (CLI); the change is audited and announced. */
export async function setApprovalStatus(s: Services, mode: Mode, id: string, status: BusinessRecord['approvalStatus']) {
  const now = s.clock.now();
  return seenByCache(
    s,
    mode,
    s.databases[mode].db.transaction(async (tx) => {
      const r = await queryOne<Record<string, unknown>>(tx, sql`SELECT * FROM businesses WHERE id = ${id} FOR UPDATE`);
      if (!r) throw notFound('business');
      const current = toBusinessRecord(r);
      if (current.approvalStatus === status) return current;
      await tx.execute(sql`UPDATE businesses SET approval_status = ${status}, updated_at = ${now.toISOString()} WHERE id = ${id}`);
      const after = { ...current, approvalStatus: status };
      await appendAudit(
        tx,
        { at: now, actor: { accountId: null, keyId: null } },
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
    }),
  );
}

export async function setBusinessPlan(s: Services, mode: Mode, id: string, planKey: string | null): Promise<BusinessRecord> {
  const now = s.clock.now();
  return seenByCache(
    s,
    mode,
    s.databases[mode].db.transaction(async (tx) => {
      const r = await queryOne<Record<string, unknown>>(tx, sql`SELECT * FROM businesses WHERE id = ${id} FOR UPDATE`);
      if (!r) throw notFound('business');
      await tx.execute(sql`UPDATE businesses SET plan_key = ${planKey}, updated_at = ${now.toISOString()} WHERE id = ${id}`);
      await appendAudit(
        tx,
        { at: now, actor: { accountId: null, keyId: null } },
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
    }),
  );
}
