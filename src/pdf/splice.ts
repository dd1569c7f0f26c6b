// A second variant of a finished PDF without laying it out again: the same file with a few objects replaced (the
// stream that carries the print mark on each page, the /Subject), the cross-reference table rebuilt for the new
// offsets, the trailer kept. pdfkit writes every object as `N 0 obj … endobj` and records where each starts.
import { deflateSync } from 'node:zlib';

/**
 * Page content is deflated at level 1 with an 8 KB window: zlib's default state (32 KB window, memLevel 8)
 * costs more to set up than a page takes to compress. A one-page invoice's 17 KB of drawing: pdfkit's
 * default 230 µs of CPU and 2.5 KB; here ~45 µs and 2.9 KB.
 */
export const deflateContent = (content: Uint8Array): Buffer => deflateSync(content, { level: 1, windowBits: 13, memLevel: 7 });

/** An uncompressed stream object as pdfkit writes one: its dictionary, then the bytes. */
export function rawStreamObject(id: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${id} 0 obj\n<<\n/Length ${content.length}\n>>\nstream\n`, 'latin1'), content, Buffer.from('\nendstream\nendobj\n')]);
}

/** A text string object as pdfkit writes one: PDFDocEncoding when ASCII, else UTF-16BE with its byte-order mark. */
export function stringObject(id: number, text: string): Buffer {
  let bytes: Buffer;
  if ([...text].every((c) => c.charCodeAt(0) <= 0x7f)) bytes = Buffer.from(text, 'latin1');
  else {
    bytes = Buffer.alloc((text.length + 1) * 2);
    bytes.writeUInt16BE(0xfeff, 0);
    for (let i = 0; i < text.length; i++) bytes.writeUInt16BE(text.charCodeAt(i), 2 + 2 * i);
  }
  const escaped = bytes.toString('latin1').replace(/[\n\r\t\b\f()\\]/g, (c) => ESCAPES[c]);
  return Buffer.from(`${id} 0 obj\n(${escaped})\nendobj\n`, 'latin1');
}
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '(': '\\(', ')': '\\)', '\\': '\\\\' };

/**
 * `pdf` with the objects of `replaced` (by id) swapped for the given bytes. `offsets[id - 1]` is where object id
 * starts (pdfkit's `_offsets`); an object runs to the next one, the last to the cross-reference table.
 */
export function spliceObjects(pdf: Buffer, offsets: number[], replaced: Map<number, Buffer>): Buffer {
  const xref = pdf.lastIndexOf('\nxref\n') + 1;
  const trailer = pdf.indexOf('trailer\n', xref);
  const startxref = pdf.lastIndexOf('startxref\n');
  if (xref <= 0 || trailer < 0 || startxref < trailer) throw new Error('not a PDF as pdfkit writes one');
  const order = offsets.map((at, i) => ({ id: i + 1, at })).sort((a, b) => a.at - b.at);
  const parts: Buffer[] = [pdf.subarray(0, order[0].at)];
  const moved = new Array<number>(offsets.length);
  let at = order[0].at;
  order.forEach(({ id, at: from }, i) => {
    const part = replaced.get(id) ?? pdf.subarray(from, i + 1 < order.length ? order[i + 1].at : xref);
    moved[id - 1] = at;
    parts.push(part);
    at += part.length;
  });
  const table = moved.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  parts.push(Buffer.from(`xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n${table}`, 'latin1'));
  parts.push(pdf.subarray(trailer, startxref), Buffer.from(`startxref\n${at}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}
