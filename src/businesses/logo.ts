import { validation } from '../platform/errors.ts';

const LOGO_TYPES: Record<string, { ext: string; magic: number[] }> = {
  'image/png': { ext: 'png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  'image/jpeg': { ext: 'jpg', magic: [0xff, 0xd8, 0xff] },
};

/** Decodes a logo data URI; only PNG and JPEG (what the PDF renderer embeds), checked by their bytes. */
export function decodeLogo(dataUri: string): { bytes: Buffer; mime: string; name: string } {
  const m = /^data:(image\/[a-z+.-]+);base64,([A-Za-z0-9+/=\s]+)$/.exec(dataUri);
  if (!m) throw validation('body.branding.logo', 'must be a base64 data URI (data:image/png;base64,...)');
  const type = LOGO_TYPES[m[1]];
  if (!type) throw validation('body.branding.logo', `unsupported image type ${m[1]}; use image/png or image/jpeg`);
  const bytes = Buffer.from(m[2].replace(/\s/g, ''), 'base64');
  if (bytes.length < type.magic.length || !type.magic.every((b, i) => bytes[i] === b)) {
    throw validation('body.branding.logo', `the bytes are not a ${m[1]} image`);
  }
  return { bytes, mime: m[1], name: `logo.${type.ext}` };
}
