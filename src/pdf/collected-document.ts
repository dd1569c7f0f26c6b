// pdfkit's document writing into memory: the file collected as pdfkit writes it, with the offsets it records (the
// copy's splice needs them), no stream between.
import PDFDocument from 'pdfkit';

/** The file's `length` bytes from its chunks: each run of text lines written at once, not line by line. */
export function joinChunks(chunks: readonly (string | Uint8Array)[], length: number): Buffer {
  const file = Buffer.allocUnsafe(length);
  let at = 0;
  let lines: string[] = [];
  const flush = () => {
    if (lines.length === 0) return;
    at += file.write(`${lines.join('\n')}\n`, at, 'latin1');
    lines = [];
  };
  for (const chunk of chunks) {
    if (typeof chunk === 'string') lines.push(chunk);
    else {
      flush();
      file.set(chunk, at);
      at += chunk.length;
    }
  }
  flush();
  if (at !== length) throw new Error(`the file is ${at} bytes, pdfkit counted ${length}`);
  return file;
}

/**
 * pdfkit's document collecting the file as it is written, with the offsets it records: no stream between. (Reading
 * the stream, even its header, queued a tick that held the whole document until the event loop turned, so renders
 * run back to back in one task kept every document alive.)
 */
export class CollectedDocument extends PDFDocument {
  /** The file: lines of text (latin1, each to end with a newline) and bytes, joined at the end (joinChunks). */
  declare chunks: (string | Uint8Array)[];

  _write(data: string | Uint8Array): void {
    // Called by pdfkit's constructor already, before this class's fields would be set.
    (this.chunks ??= []).push(data);
    (this as unknown as { _offset: number })._offset += typeof data === 'string' ? data.length + 1 : data.length;
  }

  /** Nothing reads the stream: its end (push(null)) would queue a tick holding the document. */
  override push(): boolean {
    return true;
  }
}
