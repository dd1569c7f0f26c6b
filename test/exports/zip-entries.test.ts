// The verifier reads the export's zip through its central directory. An entry written with a data descriptor
// (BKMVDATA.TXT: its size is known only at its end) whose bytes contain zip signatures is read whole; a
// streaming unzip that looks for the next signature to find the entry's end (fflate's Unzip, used before)
// cuts it short — which failed about 7% of million-document exports with an internal error.
import { mkdtempSync, rmSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { Unzip, UnzipInflate } from 'fflate';
import { readZipEntries } from '../../src/exports/zip-entries.ts';

const dir = mkdtempSync(join(tmpdir(), 'zip-entries-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bytes full of the signatures a scanning unzip stops at: local header, data descriptor, central directory. */
function trickyBytes(): Buffer {
  const parts: Buffer[] = [];
  for (let i = 0; i < 2000; i++)
    parts.push(
      Buffer.from(`C100${String(i).padStart(9, '0')} `),
      Buffer.from([0x50, 0x4b, 0x07, 0x08]),
      Buffer.from([0x50, 0x4b, 0x03, 0x04]),
      Buffer.from([0x50, 0x4b, 0x01, 0x02]),
      Buffer.from('\r\n'),
    );
  return Buffer.concat(parts);
}

async function writeZip(path: string, body: Buffer, compress: boolean): Promise<void> {
  const zip = new yazl.ZipFile();
  zip.addReadStream(Readable.from([body]), 'OPENFRMT/x/BKMVDATA.TXT', { compress, mtime: new Date('2026-01-01T00:00:00Z') });
  zip.addBuffer(Buffer.from('A000\r\n'), 'OPENFRMT/x/INI.TXT', { compress, mtime: new Date('2026-01-01T00:00:00Z') });
  zip.end();
  const out = zip.outputStream.pipe(createWriteStream(path));
  await once(out, 'finish');
}

async function readAll(path: string): Promise<Map<string, Buffer>> {
  const got = new Map<string, Buffer>();
  await readZipEntries(path, async (name, data) => {
    const chunks: Buffer[] = [];
    for await (const c of data as AsyncIterable<Buffer>) chunks.push(c);
    got.set(name, Buffer.concat(chunks));
  });
  return got;
}

describe('reading the export zip by its central directory', () => {
  it.each([true, false])('reads a data-descriptor entry full of zip signatures whole (compressed: %s)', async (compress) => {
    const body = trickyBytes();
    const path = join(dir, `tricky-${compress}.zip`);
    await writeZip(path, body, compress);
    const got = await readAll(path);
    expect([...got.keys()]).toEqual(['OPENFRMT/x/BKMVDATA.TXT', 'OPENFRMT/x/INI.TXT']);
    expect(got.get('OPENFRMT/x/BKMVDATA.TXT')!.equals(body)).toBe(true);
    expect(got.get('OPENFRMT/x/INI.TXT')!.toString()).toBe('A000\r\n');
  });

  it('where a signature-scanning streaming unzip does not read the same bytes', async () => {
    const body = trickyBytes();
    const path = join(dir, 'tricky-stored.zip');
    await writeZip(path, body, false);
    const { readFileSync } = await import('node:fs');
    const chunks: Uint8Array[] = [];
    let failed = false;
    const unzip = new Unzip((file) => {
      if (!file.name.endsWith('BKMVDATA.TXT')) return;
      file.ondata = (err, chunk) => {
        if (err) failed = true;
        else chunks.push(chunk);
      };
      file.start();
    });
    unzip.register(UnzipInflate);
    try {
      unzip.push(readFileSync(path), true);
    } catch {
      failed = true;
    }
    expect(failed || !Buffer.concat(chunks).equals(body)).toBe(true);
  });

  it('refuses a damaged zip', async () => {
    const path = join(dir, 'cut.zip');
    await writeZip(path, trickyBytes(), true);
    const { readFileSync, writeFileSync } = await import('node:fs');
    const bytes = readFileSync(path);
    writeFileSync(path, bytes.subarray(0, bytes.length - 30));
    await expect(readAll(path)).rejects.toThrow();
  });
});
