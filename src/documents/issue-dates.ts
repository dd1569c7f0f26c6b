/**
 * The dates of a document at issue (decisions.md "Books: dates, periods"): a draft created without a
 * date takes the day it is issued; a document is never dated after that day (Israel time), nor before
 * the latest issued document of its numbering series (next_number, migration 0033, checks that under
 * the series' lock); a document dated in a closed month of the books is refused (journal_entries_stamp).
 */
import { AppError, conflict } from '../platform/errors.ts';
import { pgErrorCode, pgErrorDetail } from '../platform/db/sql.ts';
import type { DocumentRow } from './snapshot.ts';

/** The draft with the dates it is issued with: a draft dated at issue takes `today`, and so does a value date that followed its date. */
export function withIssueDates(d: DocumentRow, today: string): DocumentRow {
  if (!d.datedAtIssue) return d;
  return { ...d, documentDate: today, valueDate: d.valueDate === d.documentDate ? today : d.valueDate };
}

/** 409 for a document dated after the day it is issued; null when its date is that day or before. */
export function futureDateRefusal(documentDate: string, today: string): AppError | null {
  if (documentDate <= today) return null;
  return conflict(
    `documentDate ${documentDate} is after today (${today}, Israel time): a document is dated on or before the day it is issued; change its documentDate`,
  );
}

interface LatestOfSeries {
  docType: number;
  docNumber: number;
  documentDate: string;
}

/**
 * The API's refusal for a numbering or period refusal of the database (SQLSTATE PK003 from
 * next_number, PK004 from journal_entries_stamp); null for any other error.
 */
export function datingRefusal(err: unknown, documentDate: string): AppError | null {
  const code = pgErrorCode(err);
  if (code === 'PK003') {
    const latest = JSON.parse(pgErrorDetail(err) ?? '{}') as LatestOfSeries;
    return conflict(
      `documentDate ${documentDate} is before ${latest.documentDate}, the date of ${latest.docType} #${latest.docNumber}, ` +
        'the latest issued document of its numbering series: the dates of a series follow its numbers; date it on or after that day',
    );
  }
  if (code === 'PK004') {
    return new AppError(
      'period_closed',
      `documentDate ${documentDate} is in ${documentDate.slice(0, 7)}, a closed period of the books: date the document in an open month, or reopen the period (POST …/ledger/periods/${documentDate.slice(0, 7)}/reopen)`,
    );
  }
  return null;
}
