/**
 * The check of B100/B110 as the file is read back (see ledger.ts for what the export writes): kept
 * apart from the SQL so that the verifier's thread loads no database code.
 */
import { signedValue, type RecordFields } from '../openfrmt/index.ts';
import type { TrialBalanceRow } from '../ledger/index.ts';

export interface LedgerVerification {
  entries: number;
  lines: number;
  /** Every entry's B100 lines balance (Σ debit = Σ credit), and its lines are together. */
  entriesBalanced: boolean;
  /** Every B100 account has its B110; no B110 appears twice. */
  accountsComplete: boolean;
  /** Each B110's debits and credits equal the sums of its B100 lines. */
  accountsMatchLines: boolean;
  /** Each B110's opening, debits and credits equal the books' (the trial balance at the end of the range). */
  matchesBooks: boolean;
  /**
   * The file's documents (C100 with an amount) and its entries that reference a document (B100/1357–1358) are the
   * same set: no document without its entry in the file, no entry of a document the file does not hold.
   */
  documentsMatchEntries: boolean;
  problems: string[];
}

/** Reads B100/B110 as they stream past (O(accounts) memory) and checks them against the books. */
export class LedgerCheck {
  private current: { entry: number; debit: number; credit: number } | null = null;
  private entries = 0;
  private lines = 0;
  private unbalanced = 0;
  private outOfOrder = 0;
  private movement = new Map<string, { debit: number; credit: number }>();
  private accounts = new Map<string, { opening: number; debit: number; credit: number }>();
  private duplicates = 0;
  private problems: string[] = [];
  private documents = new KeySet();
  private documentEntries = new KeySet();

  private note(problem: string): void {
    if (this.problems.length < 20) this.problems.push(problem);
  }

  private closeEntry(): void {
    if (this.current && this.current.debit !== this.current.credit) {
      this.unbalanced++;
      this.note(`entry ${this.current.entry}: debits ${this.current.debit} ≠ credits ${this.current.credit}`);
    }
  }

  onRecord = (code: string, f: RecordFields): void => {
    if (code === 'C100') {
      // A document of no amount posts no entry (ledger/store.ts journalCall).
      if ([1219, 1220, 1221, 1222, 1223, 1224].some((id) => signedValue(f.get(id)) !== 0))
        this.documents.add(`${Number(f.get(1203))}:${f.get(1204).trimEnd()}`);
    } else if (code === 'B100') {
      const entry = Number(f.get(1353));
      const amount = signedValue(f.get(1368));
      const side = f.get(1366);
      if (!this.current || this.current.entry !== entry) {
        this.closeEntry();
        if (this.current && entry < this.current.entry) {
          this.outOfOrder++;
          this.note(`entry ${entry} comes after entry ${this.current.entry}: an entry's lines must be together, in order`);
        }
        this.current = { entry, debit: 0, credit: 0 };
        this.entries++;
        const referencedType = Number(f.get(1358));
        if (referencedType) this.documentEntries.add(`${referencedType}:${f.get(1357).trimEnd()}`);
      }
      this.lines++;
      const account = f.get(1364).trimEnd();
      const m = this.movement.get(account) ?? { debit: 0, credit: 0 };
      if (side === '1') {
        this.current.debit += amount;
        m.debit += amount;
      } else {
        this.current.credit += amount;
        m.credit += amount;
      }
      this.movement.set(account, m);
    } else if (code === 'B110') {
      const key = f.get(1403).trimEnd();
      if (this.accounts.has(key)) {
        this.duplicates++;
        this.note(`account ${key} has two B110 records`);
      }
      this.accounts.set(key, { opening: signedValue(f.get(1414)), debit: signedValue(f.get(1415)), credit: signedValue(f.get(1416)) });
    }
  };

  result(books: { before: TrialBalanceRow[]; at: TrialBalanceRow[] }): LedgerVerification {
    this.closeEntry();
    let missing = 0;
    let mismatched = 0;
    for (const [account, m] of this.movement) {
      const b = this.accounts.get(account);
      if (!b) {
        missing++;
        this.note(`account ${account} has B100 lines but no B110`);
      } else if (b.debit !== m.debit || b.credit !== m.credit) {
        mismatched++;
        this.note(`account ${account}: B110 debits/credits ${b.debit}/${b.credit}, its B100 lines ${m.debit}/${m.credit}`);
      }
    }
    for (const [account, b] of this.accounts) {
      if (!this.movement.has(account) && (b.debit !== 0 || b.credit !== 0)) {
        mismatched++;
        this.note(`account ${account}: B110 has debits/credits but no B100 line`);
      }
    }
    // The books, read apart from what was written: the trial balance the day before the range and at its end.
    let differ = 0;
    const before = new Map(books.before.map((b) => [b.code, b]));
    const codes = new Set([...books.at.map((b) => b.code), ...this.accounts.keys()]);
    const at = new Map(books.at.map((b) => [b.code, b]));
    for (const code of codes) {
      const b0 = before.get(code) ?? { balance: 0, debit: 0, credit: 0 };
      const b1 = at.get(code);
      const f = this.accounts.get(code);
      const expected = { opening: b0.balance, debit: (b1?.debit ?? 0) - b0.debit, credit: (b1?.credit ?? 0) - b0.credit };
      if (!f || f.opening !== expected.opening || f.debit !== expected.debit || f.credit !== expected.credit) {
        differ++;
        this.note(
          `account ${code}: the books say ${expected.opening}/${expected.debit}/${expected.credit}, the file ${f ? `${f.opening}/${f.debit}/${f.credit}` : 'nothing'}`,
        );
      }
    }
    const documentsMatchEntries = this.documents.equals(this.documentEntries);
    if (!documentsMatchEntries)
      this.note(
        `the file's ${this.documents.size} documents with an amount and its ${this.documentEntries.size} entries of documents are not the same documents: ` +
          'an entry dated outside the range of its document (moved out of a closed month before issue 29), or a document without its entry',
      );
    return {
      entries: this.entries,
      lines: this.lines,
      entriesBalanced: this.unbalanced === 0 && this.outOfOrder === 0,
      accountsComplete: missing === 0 && this.duplicates === 0,
      accountsMatchLines: mismatched === 0,
      matchesBooks: differ === 0,
      documentsMatchEntries,
      problems: this.problems,
    };
  }
}

/**
 * A set of keys compared in O(1) memory (a million documents would take ~100 MB as strings): its size and
 * two sums of 32-bit FNV-1a hashes of its keys (differently seeded); equal sets give equal figures, and
 * different ones the same figures only by a collision of both sums.
 */
class KeySet {
  size = 0;
  private a = 0;
  private b = 0;
  add(key: string): void {
    this.size++;
    this.a = (this.a + fnv1a(key, 0x811c9dc5)) >>> 0;
    this.b = (this.b + fnv1a(key, 0x01000193)) >>> 0;
  }
  equals(o: KeySet): boolean {
    return this.size === o.size && this.a === o.a && this.b === o.b;
  }
}

function fnv1a(key: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export const ledgerOk = (v: LedgerVerification): boolean =>
  v.entriesBalanced && v.accountsComplete && v.accountsMatchLines && v.matchesBooks && v.documentsMatchEntries;
