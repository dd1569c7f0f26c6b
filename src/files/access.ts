import type { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { notFound } from '../platform/errors.ts';
import { storedFile, type StoredFile } from '../platform/files.ts';
import { fileReading, openFile } from '../platform/file-read.ts';
import type { Services } from '../platform/http/services.ts';

/** A stored file of one of the account's own businesses; 404 for a missing file and for another account's alike. */
export async function accountFile(db: Executor, id: string, accountId: string): Promise<StoredFile> {
  const file = await storedFile(db, id);
  if (!file) throw notFound('file');
  const owner = await queryOne(db, sql`SELECT 1 FROM businesses WHERE id = ${file.businessId} AND account_id = ${accountId}`);
  if (!owner) throw notFound('file');
  return file;
}

/** A file of the account's businesses with its checked bytes (platform/file-read.ts: hashed before the first byte goes out). */
export async function openAccountFile(s: Services, database: Database, accountId: string, id: string): Promise<{ file: StoredFile; body: Buffer | Readable }> {
  const file = await accountFile(database.db, id, accountId);
  return { file, body: await openFile(fileReading(s, database), file) };
}
