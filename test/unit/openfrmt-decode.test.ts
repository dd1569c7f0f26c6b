// The reader decodes each record with iconv-lite's ISO-8859-8 table, applied once per byte without a decoder
// per record (src/openfrmt/record-parse.ts): the same text as iconv-lite for every byte, the first byte outside
// printable text reported by its column.
import { describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { decodeRecord } from '../../src/openfrmt/record-parse.ts';

describe('decodeRecord', () => {
  it('gives the text iconv-lite gives, for every byte value, in ASCII-only and mixed records', () => {
    for (let b = 0; b < 256; b++) {
      for (const bytes of [Buffer.from([0x41, b, 0x42]), Buffer.from([0xe0, b, 0x20, 0xfa])]) {
        expect(decodeRecord(bytes).text).toBe(iconv.decode(bytes, 'iso-8859-8'));
      }
    }
    const long = Buffer.alloc(5000, 0xe5);
    expect(decodeRecord(long).text).toBe('ו'.repeat(5000));
  });
  it('reports the first byte outside printable ASCII and א..ת by its column', () => {
    expect(decodeRecord(Buffer.from([0x43, 0x31, 0x30, 0x30, 0x20, 0xf9, 0xec, 0xe5, 0xed])).badByte).toBeNull();
    expect(decodeRecord(Buffer.from([0x41, 0xe0, 0xfa, 0x20, 0x7e])).badByte).toBeNull();
    expect(decodeRecord(Buffer.from([0x41, 0x42, 0x80, 0x43, 0x09])).badByte).toBe(3);
    expect(decodeRecord(Buffer.from([0x41, 0xfd])).badByte).toBe(2);
    expect(decodeRecord(Buffer.from([0x0d, 0x41])).badByte).toBe(1);
  });
});
