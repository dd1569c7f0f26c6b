import { newestFirstPage } from '../platform/db/newest-first.ts';
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor, Tx } from '../platform/db/engine.ts';
import { iso, isoOrNull } from '../platform/db/sql.ts';
import { notFound, validation } from '../platform/errors.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { newId } from '../platform/ids.ts';
import { normalizeTaxId } from '../platform/tax-id.ts';
import { textProblemOf, type CarriedField } from '../openfrmt/index.ts';
import { metadataCondition, metadataOf, type Metadata } from '../platform/metadata.ts';
import type { PartyCreateBody, PartyFindOrCreateBody, PartyKind, PartyPatchBody, PartyView } from './schemas.ts';
import { parties, partyKeyCounters, type PartyRow } from './tables.ts';
import type { PartyKeySeries } from './lists.ts';

export function toParty(r: PartyRow): PartyView {
  return {
    id: r.id,
    key: r.key,
    kind: r.kind,
    name: r.name,
    taxId: r.taxId,
    phone: r.phone,
    email: r.email,
    address: r.address,
    digitalDocConsentAt: isoOrNull(r.digitalDocConsentAt),
    metadata: metadataOf(r.metadata),
    createdAt: iso(r.createdAt),
  };
}

/** An instant the caller gave (ISO 8601 text), parsed by PostgreSQL as before rather than by JS Date. */
const instantOf = (value: string | null): SQL | null => (value === null ? null : sql`${value}::timestamptz`);

/** The last nine digits of a phone number: 050-1234567, +972501234567 and 0501234567 all match. */
export function phoneLast9(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const digits = phone.replace(/\D/g, '');
  return digits.length >= 7 ? digits.slice(-9) : null;
}

/** A customer (or both) takes the C series, a supplier the S series. */
export const seriesOf = (kind: PartyKind): PartyKeySeries => (kind === 'supplier' ? 'S' : 'C');

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
async function nextKey(tx: Tx, businessId: string, series: PartyKeySeries): Promise<string> {
  const [r] = await tx
    .insert(partyKeyCounters)
    .values({ businessId, series, lastNumber: 1 })
    .onConflictDoUpdate({ target: [partyKeyCounters.businessId, partyKeyCounters.series], set: { lastNumber: sql`${partyKeyCounters.lastNumber} + 1` } })
    .returning({ lastNumber: partyKeyCounters.lastNumber });
  return `${series}${String(r.lastNumber).padStart(5, '0')}`;
}

export interface NewParty {
  name: string;
  kind: PartyKind;
  taxId: string | null;
  phone: string | null;
  email: string | null;
  address: string | null;
  digitalDocConsentAt: string | null;
  metadata: Metadata;
}

/** Inserts a party in the caller's transaction (also used for inline parties of documents). */
/** A new party, in its own transaction. */
export async function createParty(database: Database, at: Date, actor: Actor, businessId: string, p: NewParty): Promise<PartyView> {
  return database.db.transaction((tx) => insertParty(tx, at, actor, businessId, p));
}

export async function insertParty(tx: Tx, at: Date, actor: Actor, businessId: string, p: NewParty): Promise<PartyView> {
  const key = await nextKey(tx, businessId, seriesOf(p.kind));
  const [row] = await tx
    .insert(parties)
    .values({
      id: newId('pty', at.getTime()),
      businessId,
      key,
      kind: p.kind,
      name: p.name.trim(),
      taxId: p.taxId,
      phone: p.phone,
      phoneLast9: phoneLast9(p.phone),
      email: p.email,
      address: p.address,
      digitalDocConsentAt: instantOf(p.digitalDocConsentAt),
      metadata: p.metadata,
      createdAt: at,
      updatedAt: at,
    })
    .returning();
  const party = toParty(row);
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
    metadata: body.metadata ?? {},
  };
}

export async function listParties(ex: Executor, businessId: string, kind?: PartyKind): Promise<PartyView[]> {
  const rows = await ex
    .select()
    .from(parties)
    .where(and(eq(parties.businessId, businessId), kind ? eq(parties.kind, kind) : undefined))
    .orderBy(asc(parties.key));
  return rows.map(toParty);
}

/**
 * One page of the list, newest first in the order (created_at, id): `cursor` is the position after
 * the previous page's last row. listParties above stays for the readers that want every party.
 */
export async function listPartiesPage(
  ex: Executor,
  businessId: string,
  q: { kind?: PartyKind; take: number; cursor?: string; metadata?: string[] },
): Promise<{ parties: PartyView[]; nextCursor: string | null }> {
  const where = [
    eq(parties.businessId, businessId),
    q.kind ? eq(parties.kind, q.kind) : undefined,
    metadataCondition(q.metadata, sql`${parties.metadata}`) ?? undefined,
  ];
  const { rows, nextCursor } = await newestFirstPage(ex, { name: 'parties', table: parties }, { where, cursor: q.cursor, take: q.take });
  return { parties: rows.map(toParty), nextCursor };
}

export async function getParty(ex: Executor, businessId: string, id: string): Promise<PartyView> {
  const [r] = await ex
    .select()
    .from(parties)
    .where(and(eq(parties.id, id), eq(parties.businessId, businessId)));
  if (!r) throw notFound('party');
  return toParty(r);
}

/**
 * Finds a party by phone (last nine digits) first, then by exact name; creates one otherwise.
 * The lookup runs under the business's party-counter lock, so two racing calls cannot both create.
 */
export async function findOrCreateParty(
  database: Database,
  at: Date,
  actor: Actor,
  businessId: string,
  body: PartyFindOrCreateBody,
): Promise<{ party: PartyView; created: boolean }> {
  return database.db.transaction(async (tx) => {
    const kind = body.kind ?? 'customer';
    // Serialize find-or-create per business (the same row the running key takes).
    await tx
      .insert(partyKeyCounters)
      .values({ businessId, series: seriesOf(kind), lastNumber: 0 })
      .onConflictDoUpdate({ target: [partyKeyCounters.businessId, partyKeyCounters.series], set: { lastNumber: sql`${partyKeyCounters.lastNumber}` } });
    const firstWhere = async (condition: SQL): Promise<PartyRow | undefined> =>
      (
        await tx
          .select()
          .from(parties)
          .where(and(eq(parties.businessId, businessId), condition))
          .orderBy(asc(parties.key))
          .limit(1)
      )[0];
    const last9 = phoneLast9(body.phone);
    let found: PartyRow | undefined;
    if (last9) found = await firstWhere(eq(parties.phoneLast9, last9));
    if (!found) found = await firstWhere(eq(parties.name, body.name.trim()));
    if (found) return { party: toParty(found), created: false };
    const fresh: NewParty = {
      name: body.name,
      kind,
      taxId: checkedTaxId(body.taxId),
      phone: body.phone ?? null,
      email: body.email ?? null,
      address: formatAddress(body.address),
      digitalDocConsentAt: null,
      metadata: body.metadata ?? {},
    };
    checkCarried(fresh);
    const party = await insertParty(tx, at, actor, businessId, fresh);
    return { party, created: true };
  });
}

export async function patchParty(database: Database, at: Date, actor: Actor, businessId: string, id: string, body: PartyPatchBody): Promise<PartyView> {
  return database.db.transaction(async (tx) => {
    const [beforeRow] = await tx
      .select()
      .from(parties)
      .where(and(eq(parties.id, id), eq(parties.businessId, businessId)))
      .for('update');
    if (!beforeRow) throw notFound('party');
    const before = toParty(beforeRow);
    const next = {
      name: body.name?.trim() ?? before.name,
      taxId: body.taxId === undefined ? before.taxId : checkedTaxId(body.taxId),
      phone: body.phone === undefined ? before.phone : body.phone,
      email: body.email === undefined ? before.email : body.email,
      address: body.address === undefined ? before.address : body.address,
      digitalDocConsentAt: body.digitalDocConsentAt === undefined ? before.digitalDocConsentAt : body.digitalDocConsentAt,
      // Given whole replaces, null clears, absent keeps.
      metadata: body.metadata === undefined ? before.metadata : (body.metadata ?? {}),
    };
    checkCarried({ name: body.name, address: body.address, phone: body.phone });
    const [row] = await tx
      .update(parties)
      .set({
        name: next.name,
        taxId: next.taxId,
        phone: next.phone,
        phoneLast9: phoneLast9(next.phone),
        email: next.email,
        address: next.address,
        digitalDocConsentAt: instantOf(next.digitalDocConsentAt),
        metadata: next.metadata,
        updatedAt: at,
      })
      .where(eq(parties.id, id))
      .returning();
    const after = toParty(row);
    await appendAudit(tx, at, actor, { businessId, action: 'party.update', entityType: 'party', entityId: id, before, after });
    return after;
  });
}
