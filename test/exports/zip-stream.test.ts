// The verifier reads the export's zip from its file while it is written (src/exports/zip-stream.ts): each
// deflated entry ends where its deflate stream ends, its data descriptor is checked there, and the finished
// file's central directory must agree. Fed here in small, uneven steps, as a writer racing the reader would.
import { mkdtempSync, rmSync, createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { GrowingFile, readGrowingZip } from '../../src/exports/zip-stream.ts';

const dir = mkdtempSync(join(tmpdir(), 'zip-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bytes full of the signatures a scanning unzip would stop at, and of little else (they deflate poorly). */
function trickyBytes(n: number): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < n; i++)
    parts.push(
      Buffer.from(`C100${String(i).padStart(9, '0')} `),
      Buffer.from([0x50, 0x4b, 0x07, 0x08, 0x50, 0x4b, 0x03, 0x04, 0x50, 0x4b, 0x01, 0x02]),
      Buffer.from('\r\n'),
    );
  return Buffer.concat(parts);
}

async function writeZip(path: string, body: Buffer, level: number): Promise<void> {
  const zip = new yazl.ZipFile();
  // Several chunks, as the export writes BKMVDATA.TXT: a data descriptor follows the entry.
  const pieces = Array.from({ length: 7 }, (_, i) => body.subarray(Math.floor((i * body.length) / 7), Math.floor(((i + 1) * body.length) / 7)));
  zip.addReadStream(Readable.from(pieces), 'OPENFRMT/x/BKMVDATA.TXT', { compressionLevel: level, mtime: new Date('2026-01-01T00:00:00Z') });
  zip.addBuffer(Buffer.from('A000\r\n'), 'OPENFRMT/x/INI.TXT', { compress: true, mtime: new Date('2026-01-01T00:00:00Z') });
  zip.end();
  const out = zip.outputStream.pipe(createWriteStream(path));
  await once(out, 'finish');
}

/** Reads `path` through a GrowingFile told about the bytes `step` at a time (the file is complete: the reader sees only what it is told). */
async function readInSteps(path: string, step: number) {
  const size = readFileSync(path).length;
  const f = await GrowingFile.open(path);
  const got = new Map<string, Buffer[]>();
  let told = 0;
  const feeding = (async () => {
    while (told < size) {
      told = Math.min(size, told + step);
      f.grown(told, told === size);
      await new Promise((r) => setImmediate(r));
    }
  })();
  try {
    const r = await readGrowingZip(f, path, (name) => {
      const chunks: Buffer[] = [];
      got.set(name, chunks);
      return (c) => chunks.push(Buffer.from(c));
    });
    await feeding;
    return { ...r, data: new Map([...got].map(([k, v]) => [k, Buffer.concat(v)])) };
  } finally {
    await f.close();
  }
}

describe('reading the export zip while it is written', () => {
  it.each([
    [1, 997],
    [3, 64 * 1024],
    [6, 5_000_000],
  ])('reads each entry whole, up to its deflate stream end (level %d, told %d bytes at a time)', async (level, step) => {
    const body = trickyBytes(20_000);
    const path = join(dir, `tricky-${level}-${step}.zip`);
    await writeZip(path, body, level);
    const r = await readInSteps(path, step);
    expect(r.problems).toEqual([]);
    expect(r.entries.map((e) => e.name)).toEqual(['OPENFRMT/x/BKMVDATA.TXT', 'OPENFRMT/x/INI.TXT']);
    expect(r.data.get('OPENFRMT/x/BKMVDATA.TXT')!.equals(body)).toBe(true);
    expect(r.data.get('OPENFRMT/x/INI.TXT')!.toString()).toBe('A000\r\n');
  });

  it("reports an entry whose data descriptor's CRC-32 differs from the bytes", async () => {
    const path = join(dir, 'bad-crc.zip');
    await writeZip(path, trickyBytes(2000), 3);
    const bytes = readFileSync(path);
    const at = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x07, 0x08]), bytes.indexOf(Buffer.from('OPENFRMT/x/BKMVDATA.TXT')) + 23);
    // The first descriptor signature after the name may sit inside the compressed bytes: find the one the central directory agrees with.
    const central = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    const crc = bytes.readUInt32LE(central + 16);
    let d = at;
    while (bytes.readUInt32LE(d + 4) !== crc) d = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x07, 0x08]), d + 1);
    bytes.writeUInt32LE((crc ^ 1) >>> 0, d + 4);
    writeFileSync(path, bytes);
    const r = await readInSteps(path, 4096);
    expect(r.problems.some((p) => p.startsWith('OPENFRMT/x/BKMVDATA.TXT: CRC-32'))).toBe(true);
  });

  it('refuses a file cut short', async () => {
    const path = join(dir, 'short.zip');
    await writeZip(path, trickyBytes(2000), 3);
    writeFileSync(path, readFileSync(path).subarray(0, 5000));
    await expect(readInSteps(path, 4096)).rejects.toThrow(/ends inside/);
  });
});
