import { sql } from 'drizzle-orm';
import type { Readable } from 'node:stream';
import type { Mode } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { storedFile } from '../platform/files.ts';
import { fileReading, openFile } from '../platform/file-read.ts';
import type { Services } from '../platform/http/services.ts';

export interface SharedPdf {
  mode: Mode;
  /** The PDF, checked against its sha256 (in memory, or a checked spool for a large one). */
  body: Buffer | Readable;
  size: number;
  variant: string;
  name: string;
}

/** The PDF behind a public link; the slug is looked up in both mode databases. Null: no such link (or its file is gone). */
export async function sharedPdf(s: Services, slug: string): Promise<SharedPdf | null> {
  for (const mode of ['live', 'sandbox'] as const) {
    const database = s.databases[mode];
    const link = await queryOne<{ file_id: string; variant: string }>(database.db, sql`SELECT file_id, variant FROM pdf_links WHERE slug = ${slug}`);
    if (!link) continue;
    const file = await storedFile(database.db, link.file_id);
    if (!file) return null;
    return { mode, body: await openFile(fileReading(s, database), file), size: file.size, variant: link.variant, name: file.name };
  }
  return null;
}
