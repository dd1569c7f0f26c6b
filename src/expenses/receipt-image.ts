import sharp, { type Metadata } from 'sharp';
import { validation } from '../platform/errors.ts';

/** Largest image accepted, in pixels (width × height): 100 megapixels covers any phone camera. */
export const MAX_INPUT_PIXELS = 100_000_000;

/**
 * Decodes an image fully (at a reduced size, which still reads every scanline) so truncated or
 * corrupt files and pixel bombs are refused before anything is stored. `bytes`: the image, or the
 * path of a file holding it (an upload's spool).
 */
export async function decodeCheck(bytes: Uint8Array | string, field = 'file'): Promise<{ width: number; height: number }> {
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning' }).metadata();
  } catch (err) {
    if (/pixel limit/i.test(String((err as Error).message))) {
      throw validation(field, `the image has more than ${MAX_INPUT_PIXELS} pixels`);
    }
    throw validation(field, 'the image cannot be read (corrupt or not an image)');
  }
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (width <= 0 || height <= 0) throw validation(field, 'the image has no dimensions');
  if (width * height > MAX_INPUT_PIXELS) {
    throw validation(field, `the image is ${width}×${height} pixels; at most ${MAX_INPUT_PIXELS} pixels are accepted`);
  }
  try {
    await sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'truncated' }).resize(64, 64, { fit: 'inside' }).raw().toBuffer();
  } catch {
    throw validation(field, 'the image is truncated or corrupt');
  }
  return { width, height };
}
