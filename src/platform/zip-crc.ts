/**
 * Every zip this process writes with yazl gets its CRC-32 from zlib's native `crc32` (Node ≥ 20.15 and
 * ≥ 22.2) instead of buffer-crc32's JavaScript: ~0.15 ms a MB against ~2 ms here, which for the
 * OPENFRMT export of a million documents (2.3 GB of BKMVDATA.TXT) is ~4.5 s of the main thread.
 * yazl exposes no hook (its issue #82 asks for the native one); it looks `unsigned` up on its
 * buffer-crc32 module at every call, so that one function is pointed at zlib's. Both compute the
 * same CRC-32 (ISO 3309): test/unit/zip-crc.test.ts compares them and reads a zip back.
 */
import { createRequire } from 'node:module';
import { crc32 } from 'node:zlib';

type BufferCrc32 = { unsigned: (data: Buffer | string, previous?: number) => number };

const yazlRequire = createRequire(createRequire(import.meta.url).resolve('yazl'));
const yazlCrc32 = yazlRequire('buffer-crc32') as BufferCrc32;

/** buffer-crc32's own function, kept for the comparison in the tests. */
export const javascriptCrc32 = yazlCrc32.unsigned;

if (typeof crc32 === 'function') {
  yazlCrc32.unsigned = (data, previous = 0) => crc32(data, previous);
}

/** Whether yazl computes its CRC-32 natively in this process. */
export const nativeZipCrc = yazlCrc32.unsigned !== javascriptCrc32;
