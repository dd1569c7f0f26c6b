// A business's logo is the same bytes on every one of its documents, but pdfkit decodes a PNG (inflate, split the
// alpha channel, deflate both again) for each document. Here pdfkit prepares a logo once, against a recording
// document, and each document replays the recorded objects: the same dictionaries and the same stream bytes.
import { createHash } from 'node:crypto';
import PDFDocument from 'pdfkit';

type Data = Record<string, unknown>;
type Ref = { data: Data; end(chunk?: Uint8Array | string): void };
/** What pdfkit's image() needs of an image it did not open itself. */
export interface PreparedImage {
  width: number;
  height: number;
  label: string;
  orientation?: number;
  obj: Ref | null;
  embed(doc: { ref(data?: Data): Ref }): void;
}

/** A reference of the recording document: its dictionary and the bytes it was ended with. */
class Recorded {
  chunks: Uint8Array[] = [];
  constructor(readonly data: Data) {}
  write(chunk: Uint8Array | string) {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(`${chunk}\n`, 'latin1') : chunk);
  }
}

interface Recording {
  width: number;
  height: number;
  orientation?: number;
  refs: Recorded[];
  /** The order the references were ended in, and the image object. */
  ended: Recorded[];
  obj: Recorded;
}

const CACHE_LOGOS = 64;
const cache = new Map<string, Promise<Recording>>();

/** Opens and prepares the image once (bounded cache by content); answers an object pdfkit draws. */
export async function preparedImage(bytes: Uint8Array): Promise<PreparedImage> {
  const key = createHash('sha256').update(bytes).digest('base64');
  let recording = cache.get(key);
  if (!recording) {
    if (cache.size >= CACHE_LOGOS) cache.delete(cache.keys().next().value!);
    recording = record(bytes);
    cache.set(key, recording);
    recording.catch(() => cache.delete(key));
  }
  const r = await recording;
  const image: PreparedImage = {
    width: r.width,
    height: r.height,
    orientation: r.orientation,
    label: 'I1',
    obj: null,
    embed(doc) {
      // Created with their dictionaries (pdfkit decides at creation whether to deflate: not when /Filter is
      // set, the recorded bytes are deflated already), then pointed at each other.
      const real = new Map<Recorded, Ref>(r.refs.map((rec) => [rec, doc.ref({ ...rec.data })]));
      const convert = (v: unknown): unknown => (v instanceof Recorded ? real.get(v) : Array.isArray(v) ? v.map(convert) : v);
      for (const ref of real.values()) for (const [k, v] of Object.entries(ref.data)) ref.data[k] = convert(v);
      for (const rec of r.ended) real.get(rec)!.end(rec.chunks.length ? Buffer.concat(rec.chunks) : undefined);
      image.obj = real.get(r.obj)!;
    },
  };
  return image;
}

/** Lets pdfkit open and embed the image into a document that only records (PNG alpha is split asynchronously). */
function record(bytes: Uint8Array): Promise<Recording> {
  return new Promise((resolve, reject) => {
    const refs: Recorded[] = [];
    const ended: Recorded[] = [];
    let image: PreparedImage;
    const recorder = {
      ref(data: Data = {}) {
        const rec = new Recorded(data);
        refs.push(rec);
        return Object.assign(rec, {
          end(chunk?: Uint8Array | string) {
            if (chunk) rec.write(chunk);
            ended.push(rec);
            if (rec === (image.obj as unknown)) resolve({ width: image.width, height: image.height, orientation: image.orientation, refs, ended, obj: rec });
          },
        });
      },
    };
    try {
      // pdfkit's own opener (PNG, JPEG); a throwaway document is only its way in.
      const opener = new PDFDocument({ autoFirstPage: false, font: null as unknown as string });
      image = (opener as unknown as { openImage(src: Uint8Array): PreparedImage }).openImage(Buffer.from(bytes));
      image.embed(recorder);
    } catch (err) {
      reject(err as Error);
    }
  });
}
