/**
 * Issue in one call: the draft is taken as this process created it (draft-cache.ts) or read without a
 * lock, everything that needs no lock is computed (issue-parts.ts: totals, currency, allocation state,
 * the frozen snapshot; here: the journal lines and the audit row), and
 * issue_document (migration 0026) takes the number, checks the day's allowance and the month's ceiling
 * and writes every row, so locks are held for that call only. A draft or business changed since the
 * read is noticed by its xmin: nothing is written and the issue starts again from a fresh read.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { Executor, Tx } from '../platform/db/engine.ts';
import { pgErrorCode, prepared, queryOne } from '../platform/db/sql.ts';
import { columnList } from '../platform/db/row-reader.ts';
import { documents } from './tables.ts';
import { AppError, conflict, limitReached, notFound } from '../platform/errors.ts';
import { NUMBER_HOLE } from '../platform/audit.ts';
import { takeDraft } from './draft-cache.ts';
import { countDocumentIssued } from '../platform/metrics.ts';
import { israelDate, israelMonthStart } from '../platform/clock.ts';
import type { Services } from '../platform/http/services.ts';
import type { RequestContext } from '../platform/http/context.ts';
import { businessCeilings, getOwnedBusiness, type BusinessRecord } from '../businesses/index.ts';
import { forgetAccounts, rememberAccounts } from '../ledger/index.ts';
import { documentView, getDocumentRow, toDocumentRow, type DocumentRow, type DocumentView } from './snapshot.ts';
import { type DocumentSnapshot } from './snapshot-types.ts';
import type { IssueBodyInput } from './schemas.ts';
import { DOC_TYPES } from './doc-types.ts';
import { issuedWritesCall, writeIssued } from './issue-writes.ts';
import { datingRefusal, futureDateRefusal, withIssueDates } from './issue-dates.ts';
import { checkSourcesUnderLock, isConverted, recordSources } from './conversion-store.ts';
import { checkDonationAtIssue, donationJobs } from './donation.ts';
import { allocationAtIssue, brandingFor, checkIssuable, currentParty, figuresAtIssue, issuedRowOf, issuedSnapshot } from './issue-parts.ts';

/** "Documents opened per business per day" (service-api.md Limits). */
export const DOCUMENTS_PER_BUSINESS_PER_DAY = 300;

export const approvalRequired = (b: BusinessRecord) => new AppError('approval_required', `the business is ${b.approvalStatus}: issuing waits for approval`);

/** The upsert that counts one more document issued by the business this Israel month. */
export function monthCountBump(businessId: string, now: Date): SQL {
  return sql`INSERT INTO document_month_counts(business_id, month, count) VALUES (${businessId}, ${israelMonthStart(now)}, 1)
      ON CONFLICT (business_id, month) DO UPDATE SET count = document_month_counts.count + 1`;
}

const ceilingReached = (max: number) =>
  limitReached(`the business reached its ceiling of ${max} issued documents this month; it resets on the 1st (Israel time)`);

/** The writes of a just-issued row whose number is known (a credit note), with `extra` writes of the caller in the same statement. */
export async function afterIssue(
  tx: Tx,
  ctx: RequestContext,
  {
    business,
    row,
    now,
    action,
    extra = [],
  }: { business: BusinessRecord; row: DocumentRow; now: Date; action: 'document.issue' | 'document.credit_note'; extra?: SQL[] },
): Promise<DocumentView> {
  const view = documentView(row);
  const jobs = [{ kind: 'document.render' as const }, ...donationJobs(row.docType)];
  await writeIssued(tx, { business, actor: ctx.actor, row, view, docNumber: String(row.docNumber), now, action, jobs }, extra);
  return view;
}

/** How many times an issue starts again when its draft or business changed between the read and the call. */
const ISSUE_ATTEMPTS = 5;

/** The draft as read for issuing, with its row version (xmin): the issue call refuses a row changed since. */
async function draftForIssue(ex: Executor, businessId: string, id: string): Promise<{ row: DocumentRow; version: string } | undefined> {
  const r = await queryOne<Record<string, unknown> & { row_version: string }>(
    ex,
    prepared(
      'document_for_issue',
      sql`SELECT ${columnList(documents)}, xmin::text AS row_version FROM documents WHERE id = ${id} AND business_id = ${businessId}`,
    ),
  );
  return r ? { row: toDocumentRow(r), version: r.row_version } : undefined;
}

const withNumber = (row: DocumentRow, n: number | string): DocumentRow =>
  // NUMBER_HOLE stands where the number goes until the database has taken it.
  ({ ...row, docNumber: n as number, snapshot: { ...row.snapshot!, docNumber: n as number } });

/** The argument of issue_document: the versions read, the limits, the series, the row's new columns and its other writes. */
async function issueCall(
  s: Services,
  ctx: RequestContext,
  {
    business,
    draft,
    body,
    call,
  }: { business: BusinessRecord; draft: { row: DocumentRow; version: string }; body: IssueBodyInput; call: { maxPerMonth: number | null; now: Date } },
) {
  const { maxPerMonth, now } = call;
  const d = draft.row;
  const db = ctx.database.db;
  checkIssuable(business, d);
  const party = await currentParty(db, business.id, d.party);
  checkDonationAtIssue(business, d, party);
  const { totals, money } = await figuresAtIssue(s, db, business, d);
  const { warnings, allocation } = allocationAtIssue(business, { document: d, party, ils: money.ils, now });
  if (maxPerMonth !== null && maxPerMonth <= 0) throw ceilingReached(maxPerMonth);
  // A logo given at issue is stored first: files are kept by content, so a refused issue leaves only an unused file.
  const branding = await brandingFor(db, s.fileStores[ctx.database.mode].current, { at: now, business, override: body?.branding });
  const parts = { party, totals, money, branding, lines: money.lines };
  const row = issuedRowOf(d, { ...parts, allocation, warnings, snapshot: issuedSnapshot(business, d, parts, now) }, now);
  const holed = withNumber(row, NUMBER_HOLE);
  const writes = issuedWritesCall({
    business,
    actor: ctx.actor,
    row: holed,
    view: documentView(holed),
    docNumber: NUMBER_HOLE,
    now,
    action: 'document.issue',
    mode: ctx.database.mode,
    jobs: [{ kind: 'document.render' }, ...(allocation.status === 'pending' ? [{ kind: 'document.allocation' as const }] : []), ...donationJobs(d.docType)],
  });
  return {
    row,
    argument: {
      id: d.id,
      businessId: business.id,
      draftVersion: draft.version,
      businessVersion: business.version,
      day: israelDate(now),
      perDay: DOCUMENTS_PER_BUSINESS_PER_DAY,
      month: israelMonthStart(now),
      perMonth: maxPerMonth,
      series: DOC_TYPES[d.docType].series,
      // issue_document sets the issued columns from the snapshot (and the snapshot's number itself).
      snapshot: row.snapshot,
      allocation,
      warnings,
      writes,
    },
  };
}

type IssueOutcome = 'issued' | 'not_found' | 'issued_before' | 'draft_changed' | 'business_changed';

/** A journal line naming an account the database does not hold (journal_lines' foreign key). */
const missingAccount = (err: unknown) => pgErrorCode(err) === '23503' && (err as { table?: string }).table === 'journal_lines';

/** Runs issue_document; its refusals (the call rolled back whole) become the API's. */
async function runIssue(
  ex: Executor,
  argument: { snapshot: DocumentSnapshot | null },
  maxPerMonth: number | null,
): Promise<{ outcome: IssueOutcome; doc_number: number | null }> {
  try {
    const r = await queryOne<{ outcome: IssueOutcome; doc_number: number | null }>(
      ex,
      prepared('issue_document', sql`SELECT outcome, doc_number FROM issue_document(${JSON.stringify(argument)}::jsonb)`),
    );
    return r!;
  } catch (err) {
    const code = pgErrorCode(err);
    if (code === 'PK001') {
      throw limitReached(`documents issued per business: the daily limit of ${DOCUMENTS_PER_BUSINESS_PER_DAY} is reached; it resets at midnight Israel time`);
    }
    if (code === 'PK002') throw ceilingReached(maxPerMonth ?? 0);
    throw datingRefusal(err, argument.snapshot!.documentDate) ?? err;
  }
}

/**
 * A converted draft (issue 30) issues in one transaction with its sources' rows locked: their quantities
 * are checked against the other issued conversions, and recorded once the number is taken.
 */
async function runConvertedIssue(
  db: RequestContext['database']['db'],
  {
    businessId,
    call,
    maxPerMonth,
    now,
  }: { businessId: string; call: { row: DocumentRow; argument: { snapshot: DocumentSnapshot | null } }; maxPerMonth: number | null; now: Date },
): Promise<{ outcome: IssueOutcome; doc_number: number | null }> {
  return db.transaction(async (tx) => {
    await checkSourcesUnderLock(tx, businessId, call.row);
    const answer = await runIssue(tx, call.argument, maxPerMonth);
    if (answer.outcome === 'issued') await recordSources(tx, businessId, call.row, now);
    return answer;
  });
}

export async function issueDocument(
  s: Services,
  ctx: RequestContext,
  { business, id, body }: { business: BusinessRecord; id: string; body: IssueBodyInput },
): Promise<{ document: DocumentView; deduped: boolean }> {
  const db = ctx.database.db;
  const { maxDocsPerMonth: maxPerMonth } = await businessCeilings(s, business, ctx.accountLimits);
  let b = business;
  // A draft this process created is issued as it wrote it, with no read first; issue_document refuses
  // it when the row moved since (draft_changed), and the next attempt reads it.
  let remembered = takeDraft(ctx.database, business.id, id);
  let accountsRetried = false;
  for (let attempt = 1; attempt <= ISSUE_ATTEMPTS; attempt++) {
    const read = remembered ?? (await draftForIssue(db, b.id, id));
    remembered = undefined;
    if (!read) throw notFound('document');
    if (read.row.status === 'issued') return { document: documentView(read.row), deduped: true };
    if (b.approvalStatus !== 'approved') throw approvalRequired(b);
    const now = s.clock.now();
    const today = israelDate(now);
    const draft = { ...read, row: withIssueDates(read.row, today) };
    const future = futureDateRefusal(draft.row.documentDate, today);
    if (future) throw future;
    const call = await issueCall(s, ctx, { business: b, draft, body, call: { maxPerMonth, now } });
    let answer: Awaited<ReturnType<typeof runIssue>>;
    try {
      answer = isConverted(call.row)
        ? await runConvertedIssue(db, { businessId: b.id, call, maxPerMonth, now })
        : await runIssue(db, call.argument, maxPerMonth);
    } catch (err) {
      // An account this process remembered is missing from the database: send them all on the next attempt.
      if (accountsRetried || !missingAccount(err)) throw err;
      accountsRetried = true;
      forgetAccounts(ctx.database.mode, b.id);
      continue;
    }
    switch (answer.outcome) {
      case 'issued': {
        const journal = call.argument.writes.journal;
        if (journal)
          rememberAccounts(
            ctx.database.mode,
            b.id,
            journal.lines.map((l) => l.account),
          );
        const document = documentView(withNumber(call.row, Number(answer.doc_number)));
        countDocumentIssued(ctx.database.mode, document.docType);
        return { document, deduped: false };
      }
      case 'issued_before':
        return { document: documentView(await getDocumentRow(db, b.id, id)), deduped: true };
      case 'not_found':
        throw notFound('document');
      case 'business_changed':
        b = await getOwnedBusiness(db, ctx.key.accountId, b.id);
        break;
      case 'draft_changed':
        break;
    }
  }
  throw conflict(`document ${id} kept changing while it was being issued; try again`);
}
