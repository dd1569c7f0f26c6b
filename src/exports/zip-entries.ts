/**
 * Reads a zip on disk entry by entry, streaming each entry's bytes: the entries and their compressed sizes
 * come from the central directory (yauzl), never from scanning the compressed bytes. BKMVDATA.TXT is written
 * with a data descriptor (its size is known only at its end); a streaming unzip that finds such an entry's
 * end by looking for the next zip signature cuts it short whenever the compressed bytes happen to contain
 * one — about 7% of million-document exports, measured as an internal error.
 */
import yauzl from 'yauzl';
import type { Readable } from 'node:stream';

/** Called for each entry in order; its data is consumed chunk by chunk (await-ed) before the next entry. */
export type EntryReader = (name: string, data: Readable) => Promise<void>;

function openZip(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true, strictFileNames: false, validateEntrySizes: true }, (err, zip) =>
      err ? reject(err) : resolve(zip),
    );
  });
}

function openEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err ? reject(err) : resolve(stream)));
  });
}

/** Every entry of the zip at `path`, through `read`; rejects on a damaged zip or a failed read. */
export async function readZipEntries(path: string, read: EntryReader): Promise<void> {
  const zip = await openZip(path);
  await new Promise<void>((resolve, reject) => {
    const fail = (err: unknown) => {
      zip.close();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    zip.on('error', fail);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      openEntry(zip, entry)
        .then((data) => read(entry.fileName, data))
        .then(() => zip.readEntry(), fail);
    });
    zip.readEntry();
  });
}

/** An entry as the central directory lists it. */
export interface CentralEntry {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  crc32: number;
}

/** The central directory of the finished zip at `path` (its entries' data is not read). */
export async function centralDirectory(path: string): Promise<CentralEntry[]> {
  const zip = await openZip(path);
  return new Promise<CentralEntry[]>((resolve, reject) => {
    const out: CentralEntry[] = [];
    zip.on('error', (err) => {
      zip.close();
      reject(err instanceof Error ? err : new Error(String(err)));
    });
    zip.on('end', () => resolve(out));
    zip.on('entry', (e: yauzl.Entry) => {
      out.push({ name: e.fileName, compressedSize: e.compressedSize, uncompressedSize: e.uncompressedSize, crc32: e.crc32 >>> 0 });
      zip.readEntry();
    });
    zip.readEntry();
  });
}
