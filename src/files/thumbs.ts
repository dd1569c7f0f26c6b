import sharp from 'sharp';
import { sql } from 'drizzle-orm';
import { query } from '../platform/db/sql.ts';
import { readFile, type FileReading } from '../platform/file-read.ts';

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
export async function thumbnails(r: FileReading, businessId: string, ids: string[]): Promise<Record<string, string>> {
  const unique = [...new Set(ids)];
  const out: Record<string, string> = {};
  if (unique.length === 0) return out;
  const images = await query<{ id: string }>(r.db, sql`SELECT id FROM files WHERE business_id = ${businessId} AND id IN ${unique} AND mime IN ${IMAGE_MIMES}`);
  // One file in memory at a time (60 receipts of 10 MB must not all be loaded at once), and one
  // decode at a time: each is CPU-bound and must not starve other requests.
  for (const { id } of images) {
    // Whole, and checked against its sha256.
    const file = await readFile(r, id);
    const uri = file ? await thumbnailDataUri(file.content) : null;
    if (uri) out[id] = uri;
  }
  return out;
}
