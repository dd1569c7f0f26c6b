import { allOf, newestFirstPage } from '../platform/db/newest-first.ts';
import { sql, type SQL } from 'drizzle-orm';
import type { Database, Executor, Tx } from '../platform/db/engine.ts';
import { insertInto, updateSet } from '../platform/db/insert-values.ts';
import { columnList, rowReader, type Readable } from '../platform/db/row-reader.ts';
import { iso, isoOrNull, query, queryOne } from '../platform/db/sql.ts';
import { notFound, validation } from '../platform/errors.ts';
import { appendAudit, type Actor } from '../platform/audit.ts';
import { newId } from '../platform/ids.ts';
import { normalizeTaxId } from '../platform/tax-id.ts';
import { textProblemOf, type CarriedField } from '../openfrmt/index.ts';
import { metadataCondition, metadataOf, type Metadata } from '../platform/metadata.ts';
import type { PartyCreateBody, PartyFindOrCreateBody, PartyKind, PartyPatchBody, PartyView } from './schemas.ts';
import { parties, partyKeyCounters, type PartyRow } from './tables.ts';
import type { PartyKeySeries } from './lists.ts';

type StoredParty = Readable<PartyRow>;
const readParty = rowReader(parties);

export function toParty(r: StoredParty): PartyView {
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

/** An instant the caller gave (ISO 8601 text), parsed by PostgreSQL rather than by JS Date. */
const instantOf = (value: string | null): SQL => sql`${value}::timestamptz`;

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
  const c = partyKeyCounters;
  const r = await queryOne<{ last_number: number }>(
    tx,
    sql`${insertInto(c, { businessId, series, lastNumber: 1 })}
        ON CONFLICT (business_id, series) DO UPDATE SET last_number = ${c}.last_number + 1 RETURNING last_number`,
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
  metadata: Metadata;
}

/** Inserts a party in the caller's transaction (also used for inline parties of documents). */
/** A new party, in its own transaction. */
export async function createParty(
  database: Database,
  { at, actor, businessId, party: p }: { at: Date; actor: Actor; businessId: string; party: NewParty },
): Promise<PartyView> {
  return database.db.transaction((tx) => insertParty(tx, { at, actor, businessId, party: p }));
}

export async function insertParty(
  tx: Tx,
  { at, actor, businessId, party: p }: { at: Date; actor: Actor; businessId: string; party: NewParty },
): Promise<PartyView> {
  const key = await nextKey(tx, businessId, seriesOf(p.kind));
  const inserted = insertInto(parties, {
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
    digitalDocConsentAt: p.digitalDocConsentAt,
    metadata: p.metadata,
    createdAt: at,
    updatedAt: at,
  });
  const [row] = await query(tx, sql`${inserted} RETURNING ${columnList(parties)}`);
  const party = toParty(readParty(row));
  await appendAudit(tx, { at, actor }, { businessId, action: 'party.create', entityType: 'party', entityId: party.id, after: party });
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
  const t = parties;
  const where = allOf([sql`${t.businessId} = ${businessId}`, kind ? sql`${t.kind} = ${kind}` : undefined]);
  const rows = await query(ex, sql`SELECT ${columnList(t)} FROM ${t} WHERE ${where} ORDER BY ${t.key}`);
  return rows.map((r) => toParty(readParty(r)));
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
    sql`${parties.businessId} = ${businessId}`,
    q.kind ? sql`${parties.kind} = ${q.kind}` : undefined,
    metadataCondition(q.metadata, sql`${parties.metadata}`) ?? undefined,
  ];
  const { rows, nextCursor } = await newestFirstPage(ex, { name: 'parties', table: parties }, { where, cursor: q.cursor, take: q.take });
  return { parties: rows.map(toParty), nextCursor };
}

export async function getParty(ex: Executor, businessId: string, id: string): Promise<PartyView> {
  const t = parties;
  const r = await queryOne(ex, sql`SELECT ${columnList(t)} FROM ${t} WHERE ${t.id} = ${id} AND ${t.businessId} = ${businessId}`);
  if (!r) throw notFound('party');
  return toParty(readParty(r));
}

/**
 * Finds a party by phone (last nine digits) first, then by exact name; creates one otherwise.
 * The lookup runs under the business's party-counter lock, so two racing calls cannot both create.
 */
export async function findOrCreateParty(
  database: Database,
  { at, actor, businessId, body }: { at: Date; actor: Actor; businessId: string; body: PartyFindOrCreateBody },
): Promise<{ party: PartyView; created: boolean }> {
  return database.db.transaction(async (tx) => {
    const kind = body.kind ?? 'customer';
    // Serialize find-or-create per business (the same row the running key takes).
    const c = partyKeyCounters;
    await tx.execute(
      sql`${insertInto(c, { businessId, series: seriesOf(kind), lastNumber: 0 })}
          ON CONFLICT (business_id, series) DO UPDATE SET last_number = ${c}.last_number`,
    );
    const t = parties;
    const firstWhere = async (condition: SQL): Promise<StoredParty | undefined> => {
      const r = await queryOne(tx, sql`SELECT ${columnList(t)} FROM ${t} WHERE ${t.businessId} = ${businessId} AND ${condition} ORDER BY ${t.key} LIMIT 1`);
      return r && readParty(r);
    };
    const last9 = phoneLast9(body.phone);
    let found: StoredParty | undefined;
    if (last9) found = await firstWhere(sql`${t.phoneLast9} = ${last9}`);
    if (!found) found = await firstWhere(sql`${t.name} = ${body.name.trim()}`);
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
    const party = await insertParty(tx, { at, actor, businessId, party: fresh });
    return { party, created: true };
  });
}

export async function patchParty(
  database: Database,
  { at, actor, businessId, id, body }: { at: Date; actor: Actor; businessId: string; id: string; body: PartyPatchBody },
): Promise<PartyView> {
  return database.db.transaction(async (tx) => {
    const t = parties;
    const beforeRow = await queryOne(tx, sql`SELECT ${columnList(t)} FROM ${t} WHERE ${t.id} = ${id} AND ${t.businessId} = ${businessId} FOR UPDATE`);
    if (!beforeRow) throw notFound('party');
    const before = toParty(readParty(beforeRow));
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
    const [row] = await query(
      tx,
      sql`${updateSet(t, {
        name: next.name,
        taxId: next.taxId,
        phone: next.phone,
        phoneLast9: phoneLast9(next.phone),
        email: next.email,
        address: next.address,
        digitalDocConsentAt: instantOf(next.digitalDocConsentAt),
        metadata: next.metadata,
        updatedAt: at,
      })} WHERE ${t.id} = ${id} RETURNING ${columnList(t)}`,
    );
    const after = toParty(readParty(row));
    await appendAudit(tx, { at, actor }, { businessId, action: 'party.update', entityType: 'party', entityId: id, before, after });
    return after;
  });
}
