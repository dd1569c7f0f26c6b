import { sql } from 'drizzle-orm';
import { query } from './db/sql.ts';
import type { StoredFile } from './files.ts';
import { storedFile } from './files.ts';
import { checkedBytes, type FileReading } from './file-read.ts';

export interface FileProblem {
  fileId: string;
  businessId: string;
  /** The backend, or `database` for a row whose bytes are still in PostgreSQL. */
  store: string;
  problem: string;
}

export interface FileWalk {
  ok: boolean;
  files: number;
  bytes: number;
  problems: FileProblem[];
}

const PAGE = 500;
/** Files read at once: a bucket answers each read after a round trip. */
const AT_ONCE = 4;

/** The ids of every file row after `after`, in id order, a page at a time. */
export async function* fileIds(r: FileReading, where = sql`TRUE`): AsyncGenerator<string[]> {
  for (let after = ''; ;) {
    const rows = await query<{ id: string }>(r.db, sql`SELECT id FROM files WHERE id > ${after} AND ${where} ORDER BY id LIMIT ${PAGE}`);
    if (rows.length === 0) return;
    yield rows.map((x) => x.id);
    after = rows[rows.length - 1].id;
  }
}

async function verifyOne(r: FileReading, file: StoredFile, walk: FileWalk): Promise<void> {
  try {
    for await (const piece of checkedBytes(r, file)) walk.bytes += piece.length;
  } catch (err) {
    // An integrity failure was logged and audited by checkedBytes; a store that cannot be read is reported too.
    walk.problems.push({ fileId: file.id, businessId: file.businessId, store: file.store ?? 'database', problem: (err as Error).message });
  }
}

/**
 * `pinkas files verify`: reads every file of the database, wherever its bytes are, and checks them against the
 * row's sha256 and size. A mismatch or a missing object is logged and audited as on any read, and listed.
 */
export async function verifyFiles(r: FileReading): Promise<FileWalk> {
  const walk: FileWalk = { ok: true, files: 0, bytes: 0, problems: [] };
  for await (const ids of fileIds(r)) {
    for (let i = 0; i < ids.length; i += AT_ONCE) {
      const files = await Promise.all(ids.slice(i, i + AT_ONCE).map((id) => storedFile(r.db, id)));
      await Promise.all(files.filter((f) => f !== undefined).map((f) => verifyOne(r, f, walk)));
      walk.files += files.filter(Boolean).length;
    }
  }
  walk.ok = walk.problems.length === 0;
  return walk;
}
