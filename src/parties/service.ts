import { sql } from 'drizzle-orm';
import type { Executor, Tx } from '../platform/db/engine.ts';
import { iso, isoOrNull, query, queryOne } from '../platform/db/sql.ts';
import { notFound, validation } from '../platform/errors.ts';
import { afterCursor, cursorAtSql, decodeCursor, pageOf } from '../platform/http/cursor.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { newId } from '../platform/ids.ts';
import { normalizeTaxId } from '../platform/tax-id.ts';
import { textProblemOf, type CarriedField } from '../openfrmt/limits.ts';
import type { PartyCreateBody, PartyFindOrCreateBody, PartyKind, PartyPatchBody, PartyView } from './schemas.ts';

export function toParty(r: Record<string, unknown>): PartyView {
  return {
    id: String(r.id),
    key: String(r.key),
    kind: String(r.kind),
    name: String(r.name),
    taxId: (r.tax_id as string | null) ?? null,
    phone: (r.phone as string | null) ?? null,
    email: (r.email as string | null) ?? null,
    address: (r.address as string | null) ?? null,
    digitalDocConsentAt: isoOrNull(r.digital_doc_consent_at),
    createdAt: iso(r.created_at),
  };
}

/** The last nine digits of a phone number: 050-1234567, +972501234567 and 0501234567 all match. */
export function phoneLast9(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const digits = phone.replace(/\D/g, '');
  return digits.length >= 7 ? digits.slice(-9) : null;
}

/** A customer (or both) takes the C series, a supplier the S series. */
export const seriesOf = (kind: PartyKind): 'C' | 'S' => (kind === 'supplier' ? 'S' : 'C');

export function formatAddress(a: PartyFindOrCreateBody['address']): string | null {
  if (a === undefined || a === null) return null;
  if (typeof a === 'string') return a.trim() || null;
  const cityLine = [a.city, a.zip].filter(Boolean).join(' ');
  return [a.street, cityLine, a.country].filter((p) => p && p.trim()).join(', ') || null;
}

/**
 * A saved party is copied into documents (C100/1207, 1208, 1214 of the export): its name, address
 * and phone must fit those fields as written to the file (folded to ISO-8859-8, e.g. ₪ is three
 * characters there), so that no document can inherit a value the export could not carry. The
 * schema bounds the length as sent; this bounds it as written.
 */
const CARRIED: [keyof Pick<NewParty, 'name' | 'address' | 'phone'>, CarriedField][] = [
  ['name', 'partyName'],
  ['address', 'partyAddress'],
  ['phone', 'partyPhone'],
];

function checkCarried(p: Partial<Pick<NewParty, 'name' | 'address' | 'phone'>>): void {
  for (const [field, carried] of CARRIED) {
    const v = p[field];
    if (!v) continue;
    const problem = textProblemOf(v, carried);
    if (problem) throw validation(`body.${field}`, problem);
  }
}

function checkedTaxId(raw: string | null | undefined, field = 'body.taxId'): string | null {
  if (raw === undefined || raw === null || raw.trim() === '') return null;
  const r = normalizeTaxId(raw);
  if (!r.ok) throw validation(field, r.problem);
  return r.value;
}

/** The next running key of a series: the counter row is locked by the upsert, so keys stay gapless under concurrency. */
async function nextKey(tx: Tx, businessId: string, series: 'C' | 'S'): Promise<string> {
  const r = await queryOne<{ last_number: number }>(
    tx,
    sql`INSERT INTO party_key_counters(business_id, series, last_number) VALUES (${businessId}, ${series}, 1)
        ON CONFLICT (business_id, series) DO UPDATE SET last_number = party_key_counters.last_number + 1
        RETURNING last_number`,
  );
  return `${series}${String(r!.last_number).padStart(5, '0')}`;
}

export interface NewParty {
  name: string;
  kind: PartyKind;
  taxId: string | null;
  phone: string | null;
  email: string | null;
  address: string | null;
  digitalDocConsentAt: string | null;
}

/** Inserts a party in the caller's transaction (also used for inline parties of documents). */
export async function insertParty(tx: Tx, at: Date, actor: Actor, businessId: string, p: NewParty): Promise<PartyView> {
  const key = await nextKey(tx, businessId, seriesOf(p.kind));
  const row = await queryOne<Record<string, unknown>>(
    tx,
    sql`INSERT INTO parties(id, business_id, key, kind, name, tax_id, phone, phone_last9, email, address, digital_doc_consent_at, created_at, updated_at)
        VALUES (${newId('pty', at.getTime())}, ${businessId}, ${key}, ${p.kind}, ${p.name.trim()}, ${p.taxId}, ${p.phone}, ${phoneLast9(p.phone)},
                ${p.email}, ${p.address}, ${p.digitalDocConsentAt}, ${at.toISOString()}, ${at.toISOString()})
        RETURNING *`,
  );
  const party = toParty(row!);
  await appendAudit(tx, at, actor, { businessId, action: 'party.create', entityType: 'party', entityId: party.id, after: party });
  return party;
}

export function newPartyFrom(body: PartyCreateBody): NewParty {
  checkCarried(body);
  return {
    name: body.name,
    kind: body.kind ?? 'customer',
    taxId: checkedTaxId(body.taxId),
    phone: body.phone ?? null,
    email: body.email ?? null,
    address: body.address ?? null,
    digitalDocConsentAt: body.digitalDocConsentAt ?? null,
  };
}

export async function listParties(ex: Executor, businessId: string, kind?: PartyKind): Promise<PartyView[]> {
  const rows = await query<Record<string, unknown>>(
    ex,
    kind
      ? sql`SELECT * FROM parties WHERE business_id = ${businessId} AND kind = ${kind} ORDER BY key`
      : sql`SELECT * FROM parties WHERE business_id = ${businessId} ORDER BY key`,
  );
  return rows.map(toParty);
}

/**
 * One page of the list, newest first in the order (created_at, id): `cursor` is the position after
 * the previous page's last row. listParties above stays for the readers that want every party.
 */
export async function listPartiesPage(
  ex: Executor,
  businessId: string,
  q: { kind?: PartyKind; take: number; cursor?: string },
): Promise<{ parties: PartyView[]; nextCursor: string | null }> {
  const conditions = [sql`business_id = ${businessId}`];
  if (q.kind) conditions.push(sql`kind = ${q.kind}`);
  if (q.cursor) conditions.push(afterCursor(decodeCursor('parties', q.cursor)));
  const rows = await query<Record<string, unknown>>(
    ex,
    sql`SELECT *, ${cursorAtSql()} AS cursor_at FROM parties WHERE ${sql.join(conditions, sql` AND `)}
        ORDER BY created_at DESC, id DESC LIMIT ${q.take + 1}`,
  );
  const { page, nextCursor } = pageOf('parties', rows, q.take, (r) => ({ createdAt: String(r.cursor_at), id: String(r.id) }));
  return { parties: page.map(toParty), nextCursor };
}

export async function getParty(ex: Executor, businessId: string, id: string): Promise<PartyView> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT * FROM parties WHERE id = ${id} AND business_id = ${businessId}`);
  if (!r) throw notFound('party');
  return toParty(r);
}

/**
 * Finds a party by phone (last nine digits) first, then by exact name; creates one otherwise.
 * The lookup runs under the business's party-counter lock, so two racing calls cannot both create.
 */
export async function findOrCreateParty(
  tx: Tx,
  at: Date,
  actor: Actor,
  businessId: string,
  body: PartyFindOrCreateBody,
): Promise<{ party: PartyView; created: boolean }> {
  const kind = body.kind ?? 'customer';
  // Serialize find-or-create per business (the same row the running key takes).
  await tx.execute(
    sql`INSERT INTO party_key_counters(business_id, series, last_number) VALUES (${businessId}, ${seriesOf(kind)}, 0)
        ON CONFLICT (business_id, series) DO UPDATE SET last_number = party_key_counters.last_number`,
  );
  const last9 = phoneLast9(body.phone);
  let found: Record<string, unknown> | undefined;
  if (last9) {
    found = await queryOne(tx, sql`SELECT * FROM parties WHERE business_id = ${businessId} AND phone_last9 = ${last9} ORDER BY key LIMIT 1`);
  }
  if (!found) {
    found = await queryOne(tx, sql`SELECT * FROM parties WHERE business_id = ${businessId} AND name = ${body.name.trim()} ORDER BY key LIMIT 1`);
  }
  if (found) return { party: toParty(found), created: false };
  const fresh: NewParty = {
    name: body.name,
    kind,
    taxId: checkedTaxId(body.taxId),
    phone: body.phone ?? null,
    email: body.email ?? null,
    address: formatAddress(body.address),
    digitalDocConsentAt: null,
  };
  checkCarried(fresh);
  const party = await insertParty(tx, at, actor, businessId, fresh);
  return { party, created: true };
}

export async function patchParty(tx: Tx, at: Date, actor: Actor, businessId: string, id: string, body: PartyPatchBody): Promise<PartyView> {
  const beforeRow = await queryOne<Record<string, unknown>>(tx, sql`SELECT * FROM parties WHERE id = ${id} AND business_id = ${businessId} FOR UPDATE`);
  if (!beforeRow) throw notFound('party');
  const before = toParty(beforeRow);
  const next = {
    name: body.name?.trim() ?? before.name,
    taxId: body.taxId === undefined ? before.taxId : checkedTaxId(body.taxId),
    phone: body.phone === undefined ? before.phone : body.phone,
    email: body.email === undefined ? before.email : body.email,
    address: body.address === undefined ? before.address : body.address,
    digitalDocConsentAt: body.digitalDocConsentAt === undefined ? before.digitalDocConsentAt : body.digitalDocConsentAt,
  };
  checkCarried({ name: body.name, address: body.address, phone: body.phone });
  const row = await queryOne<Record<string, unknown>>(
    tx,
    sql`UPDATE parties SET name = ${next.name}, tax_id = ${next.taxId}, phone = ${next.phone}, phone_last9 = ${phoneLast9(next.phone)},
          email = ${next.email}, address = ${next.address}, digital_doc_consent_at = ${next.digitalDocConsentAt}, updated_at = ${at.toISOString()}
        WHERE id = ${id} RETURNING *`,
  );
  const after = toParty(row!);
  await appendAudit(tx, at, actor, { businessId, action: 'party.update', entityType: 'party', entityId: id, before, after });
  return after;
}
