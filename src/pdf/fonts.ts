import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { create, type Font } from 'fontkit';

const require = createRequire(import.meta.url);

/**
 * Heebo (OFL) from npm: a full TTF with Hebrew, Latin, digits and ₪. Read and parsed once per
 * process: pdfkit takes a parsed fontkit font as it is, so every document reuses the parsed tables
 * (parsing the TTF again per document was most of a render's time). pdfkit still embeds a subset
 * of the glyphs each document uses.
 */
let cached: { regular: Font; bold: Font } | null = null;

const parse = (file: string) => create(readFileSync(require.resolve(file))) as Font;

export function hebrewFonts(): { regular: Font; bold: Font } {
  cached ??= {
    regular: parse('@expo-google-fonts/heebo/400Regular/Heebo_400Regular.ttf'),
    bold: parse('@expo-google-fonts/heebo/700Bold/Heebo_700Bold.ttf'),
  };
  return cached;
}
