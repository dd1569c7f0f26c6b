import { sql } from 'drizzle-orm';
import type { Database, Mode } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { fileContent } from '../platform/files.ts';

export interface SharedPdf {
  mode: Mode;
  content: Buffer;
  variant: string;
  name: string;
}

/** The PDF behind a public link; the slug is looked up in both mode databases. Null: no such link (or its file is gone). */
export async function sharedPdf(databases: Record<Mode, Database>, slug: string): Promise<SharedPdf | null> {
  for (const mode of ['live', 'sandbox'] as const) {
    const database = databases[mode];
    const link = await queryOne<{ file_id: string; variant: string }>(database.db, sql`SELECT file_id, variant FROM pdf_links WHERE slug = ${slug}`);
    if (!link) continue;
    const file = await fileContent(database.db, link.file_id);
    if (!file) return null;
    return { mode, content: file.content, variant: link.variant, name: file.name };
  }
  return null;
}
