import { describe, expect, it } from 'vitest';
import { joinChunks } from '../../src/pdf/collected-document.ts';

describe('joinChunks (the file as pdfkit wrote it)', () => {
  it('ends every text line with a newline and keeps bytes as they are, in order', () => {
    const chunks = ['%PDF-1.3', new Uint8Array([0xff, 0x00, 0x0a]), '1 0 obj', '<<', '>>', Buffer.from('stream bytes')];
    const length = chunks.reduce((n, c) => n + (typeof c === 'string' ? c.length + 1 : c.length), 0);
    const file = joinChunks(chunks, length);
    expect(file.equals(Buffer.concat([Buffer.from('%PDF-1.3\n'), Buffer.from([0xff, 0x00, 0x0a]), Buffer.from('1 0 obj\n<<\n>>\nstream bytes')]))).toBe(true);
  });

  it('writes text as latin1 bytes (pdfkit writes binary strings)', () => {
    expect([...joinChunks(['(\xfe\xff)'], 5)]).toEqual([0x28, 0xfe, 0xff, 0x29, 0x0a]);
  });

  it('refuses a length that is not the chunks’ own', () => {
    expect(() => joinChunks(['abc'], 5)).toThrow(/4 bytes/);
  });
});
