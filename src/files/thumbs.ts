import sharp from 'sharp';
import { sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/engine.ts';
import { query } from '../platform/db/sql.ts';

/** Longest side of a thumbnail, pixels. */
export const THUMB_SIZE = 160;
export const MAX_THUMB_IDS = 60;
const THUMB_INPUT_PIXELS = 100_000_000;
const IMAGE_MIMES = ['image/jpeg', 'image/png', 'image/webp', 'image/gif'];

/** A small JPEG data URI of an image; null when the bytes cannot be decoded. */
export async function thumbnailDataUri(bytes: Uint8Array): Promise<string | null> {
  try {
    const jpeg = await sharp(bytes, { limitInputPixels: THUMB_INPUT_PIXELS, failOn: 'truncated' })
      .rotate() // honour EXIF orientation (phone photos)
      .resize(THUMB_SIZE, THUMB_SIZE, { fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 70, mozjpeg: true })
      .toBuffer();
    return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
  } catch {
    return null;
  }
}

/**
 * Thumbnails of the business's image files among `ids`. Unknown ids, other businesses' files,
 * non-images and undecodable images are simply absent from the answer.
 */
export async function thumbnails(ex: Executor, businessId: string, ids: string[]): Promise<Record<string, string>> {
  const unique = [...new Set(ids)];
  const out: Record<string, string> = {};
  if (unique.length === 0) return out;
  const rows = await query<{ id: string; content: Uint8Array }>(
    ex,
    sql`SELECT id, content FROM files WHERE business_id = ${businessId} AND id IN ${unique} AND mime IN ${IMAGE_MIMES}`,
  );
  // One at a time: each decode is CPU-bound and a batch of 60 must not starve the event loop's peers.
  for (const r of rows) {
    const uri = await thumbnailDataUri(r.content);
    if (uri) out[r.id] = uri;
  }
  return out;
}
