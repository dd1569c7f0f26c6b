import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import yauzl from 'yauzl';
import { javascriptCrc32, nativeZipCrc } from '../../src/platform/zip-crc.ts';
import { centralDirectory } from '../../src/exports/zip-entries.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pinkas-zip-crc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An entry's bytes as yauzl inflates them. */
function entryBytes(file: string, name: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      zip.on('entry', (e: yauzl.Entry) => {
        if (e.fileName !== name) return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2) return reject(err2);
          const parts: Buffer[] = [];
          stream.on('data', (c: Buffer) => parts.push(c));
          stream.on('end', () => {
            zip.close();
            resolve(Buffer.concat(parts));
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => reject(new Error(`${name} is not in the zip`)));
      zip.readEntry();
    });
  });
}

describe("yazl's CRC-32 from zlib", () => {
  it('is in use on this Node', () => {
    expect(nativeZipCrc).toBe(true);
  });

  it('gives what buffer-crc32 gives, whole and chained over pieces of every size', async () => {
    const { crc32 } = await import('node:zlib');
    for (const size of [0, 1, 2, 3, 7, 64, 255, 4096, 65_537, 1 << 20]) {
      const bytes = randomBytes(size);
      expect(crc32(bytes)).toBe(javascriptCrc32(bytes));
      let js = 0;
      let native = 0;
      for (let at = 0; at < size; at += 997) {
        const piece = bytes.subarray(at, at + 997);
        js = javascriptCrc32(piece, js);
        native = crc32(piece, native);
      }
      expect(native).toBe(js);
      expect(native).toBe(javascriptCrc32(bytes));
    }
  });

  it("writes the entries' true CRC-32 into a zip, for a streamed entry and a buffer", async () => {
    const streamed = Buffer.concat(Array.from({ length: 40 }, (_, i) => Buffer.from(`C100${String(i).padStart(9, '0')}${' '.repeat(300)}\r\n`)));
    const small = randomBytes(3000);
    const zip = new yazl.ZipFile();
    const source = new PassThrough();
    zip.addReadStream(source, 'OPEN/BKMVDATA.TXT', { compressionLevel: 3 });
    const file = path.join(dir, 'crc.zip');
    const written = pipeline(zip.outputStream, createWriteStream(file));
    for (let at = 0; at < streamed.length; at += 1000) source.write(streamed.subarray(at, at + 1000));
    source.end();
    zip.addBuffer(small, 'OPEN/INI.TXT', { compress: true });
    zip.end();
    await written;

    const entries = await centralDirectory(file);
    expect(entries.map((e) => e.name)).toEqual(['OPEN/BKMVDATA.TXT', 'OPEN/INI.TXT']);
    for (const [name, bytes] of [
      ['OPEN/BKMVDATA.TXT', streamed],
      ['OPEN/INI.TXT', small],
    ] as const) {
      const entry = entries.find((e) => e.name === name)!;
      expect(await entryBytes(file, name)).toEqual(bytes);
      expect(entry.crc32).toBe(javascriptCrc32(bytes));
    }
  });
});
