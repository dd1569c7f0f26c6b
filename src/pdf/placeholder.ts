// The signature field and its empty signature, as @signpdf/placeholder-pdfkit adds them (the same objects, the
// same bytes), with the 8 KB of zeros of /Contents formatted once per process: pdfkit turned them into hex byte by
// byte in every document. cms.ts fills the hole once the file is written.
import { preformatted } from './preformatted.ts';

interface Document {
  ref(data: Record<string, unknown>): { end(): void };
  initForm(): void;
  _acroform?: unknown;
  _root: { data: { AcroForm: { data: { Fields: unknown[]; DR: unknown } } } };
  page: { dictionary: unknown; annotations: unknown[] };
}

/** What the signature dictionary says; `length`: the bytes reserved for the CMS. */
export interface Placeholder {
  reason: string;
  name: string;
  location: string;
  signingTime: Date;
  length: number;
  appName: string;
}

/** adbe.pkcs7.detached; SigFlags: signatures exist, append only (3). */
const SUB_FILTER = 'adbe.pkcs7.detached';
const SIG_FLAGS = 3;
const BYTE_RANGE_PLACEHOLDER = '**********';

const emptyContents = new Map<number, string>();

/** Adds the signature dictionary, its widget on the current page and the form that lists it. */
export function addSignaturePlaceholder(pdf: PDFKit.PDFDocument, p: Placeholder): void {
  const doc = pdf as unknown as Document;
  let contents = emptyContents.get(p.length);
  if (contents === undefined) emptyContents.set(p.length, (contents = `<${'00'.repeat(p.length)}>`));
  const signature = doc.ref({
    Type: 'Sig',
    Filter: 'Adobe.PPKLite',
    SubFilter: SUB_FILTER,
    ByteRange: [0, BYTE_RANGE_PLACEHOLDER, BYTE_RANGE_PLACEHOLDER, BYTE_RANGE_PLACEHOLDER],
    Contents: preformatted(doc, contents),
    Reason: new String(p.reason),
    M: p.signingTime,
    ContactInfo: new String(''),
    Name: new String(p.name),
    Location: new String(p.location),
    Prop_Build: { Filter: { Name: 'Adobe.PPKLite' }, App: { Name: p.appName } },
  });
  if (!doc._acroform) doc.initForm();
  const form = doc._root.data.AcroForm;
  const fields = form.data.Fields;
  form.data = { Type: 'AcroForm', SigFlags: SIG_FLAGS, Fields: fields, DR: form.data.DR } as typeof form.data;
  const widget = doc.ref({
    Type: 'Annot',
    Subtype: 'Widget',
    FT: 'Sig',
    Rect: [0, 0, 0, 0],
    V: signature,
    T: new String(`Signature${fields.length + 1}`),
    P: doc.page.dictionary,
  });
  doc.page.annotations.push(widget);
  fields.push(widget);
  signature.end();
  widget.end();
}
