// One font subset per process and font, shared by every document: pdfkit builds, encodes and deflates a new
// TrueType subset for each document it ends (a third of a render's time). Here the glyph numbering is the
// process's: seeded with the glyphs nearly every page uses (Hebrew, ASCII, digits, ₪ and common punctuation)
// and grown when a document needs another one, so the encoded file, its widths and its ToUnicode map are
// built once and written as they are into every document until the subset grows. The price is size: each
// file carries the seeded repertoire (~9 KB a font deflated) rather than its own glyphs only.
import { deflateSync } from 'node:zlib';
import type { Font, Glyph } from 'fontkit';
import { pdfNumber } from './glyph-runs.ts';
import { preformatted } from './preformatted.ts';

/** The text whose glyphs are numbered first, in this order: what a page of any language mostly draws. */
const SEED =
  Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('') +
  Array.from({ length: 0x5eb - 0x5d0 }, (_, i) => String.fromCharCode(0x5d0 + i)).join('') +
  '₪״׳–—‘’“”•·…×';

type Subset = { includeGlyph(id: number): number; encode(): Uint8Array; glyphs: number[] };
type Ref = { data: Record<string, unknown>; end(chunk?: Uint8Array | string): void };
/** The parts of pdfkit's EmbeddedFont this file replaces or reads (pdfkit is pinned by the lock file). */
export interface EmbeddedFont {
  id: string;
  font: Font & { layout(text: string, ...args: unknown[]): { glyphs: Glyph[] } };
  document: { ref(data?: Record<string, unknown>): Ref };
  dictionary: Ref;
  subset: Subset;
  widths: (number | null)[];
  unicode: number[][];
  scale: number;
  embed(): void;
}

interface Shared {
  font: Font;
  scale: number;
  subset: Subset;
  widths: (number | null)[];
  unicode: number[][];
  /** The encoded parts for a subset of `glyphs` glyphs. */
  /** `widths`: the /W array as pdfkit writes it. */
  encoded: { glyphs: number; file: Buffer; cmap: Buffer; widths: string } | null;
  descriptor: Record<string, unknown>;
  /** The font's PostScript name as pdfkit writes it (fontkit reads its name table again on every call). */
  postscriptName: string;
}

const shared = new WeakMap<object, Shared>();

/** Makes a document's font use the process's subset of its fontkit font (call once per document font). */
export function shareEmbedding(pdfFont: EmbeddedFont): void {
  let s = shared.get(pdfFont.font);
  if (!s) shared.set(pdfFont.font, (s = createShared(pdfFont)));
  pdfFont.subset = s.subset;
  pdfFont.widths = s.widths;
  pdfFont.unicode = s.unicode;
  const state = s;
  pdfFont.embed = () => embed(pdfFont, state);
}

function createShared(pdfFont: EmbeddedFont): Shared {
  const { font, scale } = pdfFont;
  const s: Shared = {
    font,
    scale,
    subset: pdfFont.subset,
    widths: pdfFont.widths,
    unicode: pdfFont.unicode,
    encoded: null,
    descriptor: descriptorOf(pdfFont),
    postscriptName: font.postscriptName.replaceAll(' ', '_'),
  };
  // Left to right, as the writer lays every run out (the text is in visual order already).
  for (const glyph of font.layout(SEED, undefined, undefined, undefined, 'ltr').glyphs) {
    const gid = s.subset.includeGlyph(glyph.id);
    s.widths[gid] ??= glyph.advanceWidth * scale;
    s.unicode[gid] ??= glyph.codePoints;
  }
  return s;
}

/** What pdfkit's EmbeddedFont.embed writes in its FontDescriptor, less the per-document name. */
function descriptorOf({ font, scale }: EmbeddedFont): Record<string, unknown> {
  const t = font as unknown as { 'OS/2'?: { sFamilyClass?: number }; post: { isFixedPitch: boolean }; head: { macStyle: { italic: boolean } } };
  const familyClass = (t['OS/2']?.sFamilyClass ?? 0) >> 8;
  let flags = t.post.isFixedPitch ? 1 : 0;
  if (familyClass >= 1 && familyClass <= 7) flags |= 1 << 1;
  flags |= 1 << 2;
  if (familyClass === 10) flags |= 1 << 3;
  if (t.head.macStyle.italic) flags |= 1 << 6;
  const { bbox } = font;
  return {
    Flags: flags,
    FontBBox: [bbox.minX * scale, bbox.minY * scale, bbox.maxX * scale, bbox.maxY * scale],
    ItalicAngle: font.italicAngle,
    Ascent: font.ascent * scale,
    Descent: font.descent * scale,
    CapHeight: (font.capHeight || font.ascent) * scale,
    XHeight: (font.xHeight || 0) * scale,
    StemV: 0,
  };
}

function encoded(s: Shared): NonNullable<Shared['encoded']> {
  const glyphs = s.subset.glyphs.length;
  if (s.encoded?.glyphs !== glyphs) {
    // encode() may include the parts of composite glyphs: they get their widths (and no text) after it.
    // Deflated once per subset: the smallest file is worth the time.
    const file = deflateSync(s.subset.encode(), { level: 9 });
    s.subset.glyphs.forEach((id, gid) => {
      s.widths[gid] ??= s.font.getGlyph(id).advanceWidth * s.scale;
      s.unicode[gid] ??= [];
    });
    const widths = `[0 [${Array.from(s.widths, (w) => (w == null ? 'null' : pdfNumber(w))).join(' ')}]]`;
    s.encoded = { glyphs: s.subset.glyphs.length, file, cmap: deflateSync(toUnicodeCmap(s.unicode), { level: 9 }), widths };
  }
  return s.encoded;
}

/** pdfkit's EmbeddedFont.embed, writing the shared subset's encoded parts. */
function embed(pdfFont: EmbeddedFont, s: Shared): void {
  const doc = pdfFont.document;
  const parts = encoded(s);
  const fontFile = doc.ref({ Filter: 'FlateDecode' });
  fontFile.end(parts.file);
  const tag = [1, 2, 3, 4, 5, 6].map((i) => String.fromCharCode((pdfFont.id.charCodeAt(i) || 73) + 17)).join('');
  const name = `${tag}+${s.postscriptName}`;
  const descriptor = doc.ref({ Type: 'FontDescriptor', FontName: name, ...s.descriptor, FontFile2: fontFile });
  descriptor.end();
  const descendant = doc.ref({
    Type: 'Font',
    Subtype: 'CIDFontType2',
    BaseFont: name,
    CIDSystemInfo: { Registry: new String('Adobe'), Ordering: new String('Identity'), Supplement: 0 },
    FontDescriptor: descriptor,
    W: preformatted(doc, parts.widths),
    CIDToGIDMap: 'Identity',
  });
  descendant.end();
  const cmap = doc.ref({ Filter: 'FlateDecode' });
  cmap.end(parts.cmap);
  pdfFont.dictionary.data = { Type: 'Font', Subtype: 'Type0', BaseFont: name, Encoding: 'Identity-H', DescendantFonts: [descendant], ToUnicode: cmap };
  pdfFont.dictionary.end();
}

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** pdfkit's ToUnicode CMap, byte for byte. */
function toUnicodeCmap(unicode: number[][]): Buffer {
  const entries = unicode.map((codePoints) => {
    const encoded: string[] = [];
    for (let value of codePoints) {
      if (value > 0xffff) {
        value -= 0x10000;
        encoded.push(hex4(((value >>> 10) & 0x3ff) | 0xd800));
        value = 0xdc00 | (value & 0x3ff);
      }
      encoded.push(hex4(value));
    }
    return `<${encoded.join(' ')}>`;
  });
  const ranges: string[] = [];
  for (let start = 0; start < entries.length; start += 256) {
    const end = Math.min(start + 256, entries.length);
    ranges.push(`<${hex4(start)}> <${hex4(end - 1)}> [${entries.slice(start, end).join(' ')}]`);
  }
  const text = `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo <<
  /Registry (Adobe)
  /Ordering (UCS)
  /Supplement 0
>> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<0000><ffff>
endcodespacerange
${ranges.length} beginbfrange
${ranges.join('\n')}
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end
`;
  return Buffer.from(text, 'latin1');
}
