import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Executor } from './db/engine.ts';
import { iso, queryOne } from './db/sql.ts';
import { newId } from './ids.ts';

export interface FileMeta {
  id: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  createdAt: string;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function toMeta(r: Record<string, unknown>): FileMeta {
  return {
    id: String(r.id),
    name: String(r.name),
    mime: String(r.mime),
    size: Number(r.size),
    sha256: String(r.sha256),
    createdAt: iso(r.created_at),
  };
}

/**
 * Stores bytes once per business (content-addressed by sha256). Storing the same content again
 * answers the existing file with `existed: true`.
 */
export async function storeFile(
  tx: Executor,
  at: Date,
  f: { businessId: string; bytes: Uint8Array; mime: string; name: string },
): Promise<FileMeta & { existed: boolean }> {
  const sha = sha256Hex(f.bytes);
  const inserted = await queryOne<Record<string, unknown>>(
    tx,
    sql`INSERT INTO files(id, business_id, sha256, mime, size, name, content, created_at)
        VALUES (${newId('file', at.getTime())}, ${f.businessId}, ${sha}, ${f.mime}, ${f.bytes.length}, ${f.name},
                ${Buffer.from(f.bytes)}, ${at.toISOString()})
        ON CONFLICT (business_id, sha256) DO NOTHING
        RETURNING id, name, mime, size, sha256, created_at`,
  );
  if (inserted) return { ...toMeta(inserted), existed: false };
  const existing = await queryOne<Record<string, unknown>>(
    tx,
    sql`SELECT id, name, mime, size, sha256, created_at FROM files WHERE business_id = ${f.businessId} AND sha256 = ${sha}`,
  );
  return { ...toMeta(existing!), existed: true };
}

export async function fileMeta(ex: Executor, businessId: string, fileId: string): Promise<FileMeta | undefined> {
  const r = await queryOne<Record<string, unknown>>(
    ex,
    sql`SELECT id, name, mime, size, sha256, created_at FROM files WHERE id = ${fileId} AND business_id = ${businessId}`,
  );
  return r ? toMeta(r) : undefined;
}

export async function fileContent(ex: Executor, fileId: string): Promise<(FileMeta & { businessId: string; content: Buffer }) | undefined> {
  const r = await queryOne<Record<string, unknown>>(ex, sql`SELECT * FROM files WHERE id = ${fileId}`);
  if (!r) return undefined;
  const c = r.content as Uint8Array;
  return { ...toMeta(r), businessId: String(r.business_id), content: Buffer.from(c.buffer, c.byteOffset, c.byteLength) };
}
