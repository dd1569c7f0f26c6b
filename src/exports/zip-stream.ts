/**
 * Reads a zip from its file while the file is still being written, entry by entry from its local headers:
 * the verification of an export runs beside the writing (verify-worker.ts). A deflated entry's end is where
 * its deflate stream ends (zlib says how many bytes it consumed), never found by scanning the compressed
 * bytes for a signature; the data descriptor after it is read there and its CRC-32 and sizes are compared
 * with what was inflated. Once the file is finished, its central directory (read independently, by yauzl)
 * must list the same entries with the same sizes and CRCs. A stored (uncompressed) entry written with a data
 * descriptor has no knowable end while streaming and is refused.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { createInflateRaw, crc32 } from 'node:zlib';
import { once } from 'node:events';
import { centralDirectory, type CentralEntry } from './zip-entries.ts';

const LOCAL = 0x04034b50;
const CENTRAL = 0x02014b50;
const DESCRIPTOR = 0x08074b50;
const READ_SIZE = 1 << 20;

/** The file as it grows: reads wait until the writer has announced enough bytes (or has finished). */
export class GrowingFile {
  private size = 0;
  private finished = false;
  private wake: (() => void) | null = null;
  private pending: Buffer = Buffer.alloc(0);
  private readAt = 0;
  /** Bytes handed out so far: the offset of the next byte read(). */
  position = 0;

  private constructor(private readonly fh: FileHandle) {}

  static async open(path: string): Promise<GrowingFile> {
    return new GrowingFile(await open(path, 'r'));
  }

  /** The writer has `size` bytes on disk; `final`: and no more will come. */
  grown(size: number, final = false): void {
    this.size = Math.max(this.size, size);
    this.finished ||= final;
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private async fill(): Promise<boolean> {
    while (this.readAt >= this.size) {
      if (this.finished) return false;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    const want = Math.min(READ_SIZE, this.size - this.readAt);
    const buf = Buffer.allocUnsafe(want);
    const { bytesRead } = await this.fh.read(buf, 0, want, this.readAt);
    if (bytesRead === 0) throw new Error(`the zip ends at ${this.readAt} bytes, ${this.size} announced`);
    this.readAt += bytesRead;
    const got = buf.subarray(0, bytesRead);
    this.pending = this.pending.length ? Buffer.concat([this.pending, got]) : got;
    return true;
  }

  /** Up to `max` bytes (at least one); null at the end of a finished file. */
  async some(max: number): Promise<Buffer | null> {
    if (this.pending.length === 0 && !(await this.fill())) return null;
    const out = this.pending.subarray(0, Math.min(max, this.pending.length));
    this.pending = this.pending.subarray(out.length);
    this.position += out.length;
    return out;
  }

  /** Exactly `n` bytes; throws at the end of a finished file. */
  async exactly(n: number): Promise<Buffer> {
    while (this.pending.length < n) if (!(await this.fill())) throw new Error(`the zip ends inside a record at ${this.position}`);
    const out = Buffer.from(this.pending.subarray(0, n));
    this.pending = this.pending.subarray(n);
    this.position += n;
    return out;
  }

  /** Gives back the last `n` bytes handed out (what a deflate stream did not consume). */
  unread(chunk: Buffer, n: number): void {
    if (n === 0) return;
    this.pending = Buffer.concat([chunk.subarray(chunk.length - n), this.pending]);
    this.position -= n;
  }

  close(): Promise<void> {
    return this.fh.close();
  }
}

/** An entry as read from its local header, data and data descriptor. */
export interface StreamedEntry {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  crc32: number;
}

/** Inflates one deflated entry from `f`, handing each inflated chunk to `onData`; answers compressed size, size and CRC-32. */
async function inflateEntry(f: GrowingFile, onData: (chunk: Buffer) => void): Promise<{ compressed: number; size: number; crc: number }> {
  const inflater = createInflateRaw();
  let size = 0;
  let crc = 0;
  let ended = false;
  inflater.on('data', (chunk: Buffer) => {
    size += chunk.length;
    crc = crc32(chunk, crc);
    onData(chunk);
  });
  const end = once(inflater, 'end').then(() => (ended = true));
  const failed = once(inflater, 'error').then(([err]) => {
    throw err;
  });
  failed.catch(() => {});
  let fed = 0;
  while (!ended) {
    const chunk = await f.some(256 * 1024);
    if (!chunk) throw new Error('the zip ends inside a deflated entry');
    fed += chunk.length;
    await Promise.race([new Promise<void>((resolve, reject) => inflater.write(chunk, (err) => (err ? reject(err) : resolve()))), failed]);
    // zlib stops at the end of the deflate stream and ignores what follows: bytesWritten is where it ended.
    if (inflater.bytesWritten < fed) {
      f.unread(chunk, fed - inflater.bytesWritten);
      fed = inflater.bytesWritten;
      inflater.end();
      await Promise.race([end, failed]);
    } else await new Promise((r) => setImmediate(r));
  }
  return { compressed: fed, size, crc: crc >>> 0 };
}

/**
 * Every entry of the zip at `f`, in file order, each inflated through `onEntry`'s data callback, then the
 * central directory of the finished file compared with what was read. Throws on a damaged zip.
 */
export async function readGrowingZip(
  f: GrowingFile,
  path: string,
  onEntry: (name: string) => (chunk: Buffer) => void,
): Promise<{ entries: StreamedEntry[]; problems: string[] }> {
  const entries: StreamedEntry[] = [];
  const problems: string[] = [];
  for (;;) {
    const sig = (await f.exactly(4)).readUInt32LE(0);
    if (sig === CENTRAL) break;
    if (sig !== LOCAL) throw new Error(`no local file header at ${f.position - 4}`);
    const h = await f.exactly(26);
    const flags = h.readUInt16LE(2);
    const method = h.readUInt16LE(4);
    const name = (await f.exactly(h.readUInt16LE(22))).toString(flags & 0x800 ? 'utf8' : 'latin1');
    await f.exactly(h.readUInt16LE(24));
    const onData = onEntry(name);
    let got: { compressed: number; size: number; crc: number };
    if (method === 8) got = await inflateEntry(f, onData);
    else if (method === 0 && !(flags & 0x08)) {
      const data = await f.exactly(h.readUInt32LE(14));
      onData(data);
      got = { compressed: data.length, size: data.length, crc: crc32(data) >>> 0 };
    } else throw new Error(`${name}: compression method ${method}${flags & 0x08 ? ' with a data descriptor' : ''} cannot be read while written`);
    let expected = { crc: h.readUInt32LE(10), compressed: h.readUInt32LE(14), size: h.readUInt32LE(18) };
    if (flags & 0x08) {
      // The descriptor's optional signature, then CRC-32 and the sizes (8 bytes each once they exceed 32 bits).
      let d = await f.exactly(4);
      if (d.readUInt32LE(0) === DESCRIPTOR) d = await f.exactly(4);
      const crc = d.readUInt32LE(0);
      const wide = got.compressed > 0xfffffffe || got.size > 0xfffffffe;
      const sizes = await f.exactly(wide ? 16 : 8);
      expected = wide
        ? { crc, compressed: Number(sizes.readBigUInt64LE(0)), size: Number(sizes.readBigUInt64LE(8)) }
        : { crc, compressed: sizes.readUInt32LE(0), size: sizes.readUInt32LE(4) };
    }
    if (expected.crc !== got.crc) problems.push(`${name}: CRC-32 ${got.crc.toString(16)} read, ${expected.crc.toString(16)} recorded`);
    if (expected.size !== got.size || expected.compressed !== got.compressed)
      problems.push(`${name}: ${got.size} bytes (${got.compressed} compressed) read, ${expected.size} (${expected.compressed}) recorded`);
    entries.push({ name, compressedSize: got.compressed, uncompressedSize: got.size, crc32: got.crc });
  }
  // The rest is the central directory: wait for the finished file, then hold it to what was read.
  while (await f.some(READ_SIZE));
  problems.push(...compareDirectory(entries, await centralDirectory(path)));
  return { entries, problems };
}

function compareDirectory(read: StreamedEntry[], listed: CentralEntry[]): string[] {
  const problems: string[] = [];
  if (listed.length !== read.length) problems.push(`the central directory lists ${listed.length} entries, ${read.length} were read`);
  listed.forEach((c, i) => {
    const r = read[i];
    if (!r) return;
    if (c.name !== r.name || c.compressedSize !== r.compressedSize || c.uncompressedSize !== r.uncompressedSize || c.crc32 !== r.crc32)
      problems.push(`the central directory's entry ${i + 1} (${c.name}) differs from the entry read (${r.name})`);
  });
  return problems;
}
