import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Heebo (OFL) from npm: a full TTF with Hebrew, Latin, digits and ₪. Read once per process;
 * pdfkit embeds a subset of the glyphs actually used.
 */
let cached: { regular: Buffer; bold: Buffer } | null = null;

export function hebrewFonts(): { regular: Buffer; bold: Buffer } {
  cached ??= {
    regular: readFileSync(require.resolve('@expo-google-fonts/heebo/400Regular/Heebo_400Regular.ttf')),
    bold: readFileSync(require.resolve('@expo-google-fonts/heebo/700Bold/Heebo_700Bold.ttf')),
  };
  return cached;
}
