import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BkmvAssembler, iniFile, type ExportDocument } from '../../src/openfrmt/assemble.ts';
import type { A000Input } from '../../src/openfrmt/records.ts';
import { openZip, write } from '../../src/exports/bkmv-writer.ts';
import { judge, SourceDigest, ZipReadBack, type DocTypeCheck } from '../../src/exports/verify.ts';
import { GrowingFile, readGrowingZip } from '../../src/exports/zip-stream.ts';

/** The finished zip read back by the verifier's own reader (as its thread reads a zip being written), then judged. */
async function verifyZip(zipPath: string, dir: string, source: SourceDigest, database: Map<number, DocTypeCheck['database']>) {
  const f = await GrowingFile.open(zipPath);
  try {
    f.grown((await stat(zipPath)).size, true);
    const back = new ZipReadBack(dir, null);
    const { problems } = await readGrowingZip(f, zipPath, (name) => back.entry(name));
    return judge(back.finish(problems, null), source.figures(), database);
  } finally {
    await f.close();
  }
}

const VAT = '123456782';
const DIR = 'OPENFRMT/12345678.25/01151030';

function invoice(n: number): ExportDocument {
  return {
    docType: 305,
    docNumber: String(1000 + n),
    docDate: '2025-01-15',
    header: {
      issueDate: '2025-01-15',
      issueTime: '09:30',
      partyName: 'לקוח בע״מ',
      partyKey: `C-${n % 7}`,
      partyVatId: '514000004',
      amountBeforeDiscount: 100000,
      discount: 10000,
      amountAfterDiscountExVat: 90000,
      vatAmount: 16200,
      totalIncVat: 106200,
      withholding: 0,
      cancelled: false,
    },
    lines: [
      { description: 'ייעוץ', unit: 'שעה', quantity: 2, unitPriceExVat: 30000, lineDiscount: 0, lineTotal: 60000, vatRateBp: 1800 },
      { description: 'Widget ₪ é', unit: 'יחידה', quantity: 1, unitPriceExVat: 40000, lineDiscount: 0, lineTotal: 40000, vatRateBp: 1800 },
    ],
    payments: [],
  };
}

function a000(totalRecords: number, primaryId: string): A000Input {
  return {
    totalRecords,
    vatId: VAT,
    primaryId,
    softwareRegNo: '',
    softwareName: 'pinkas',
    softwareVersion: '0.1',
    makerVatId: '123456782',
    makerName: 'pinkas',
    softwareType: 2,
    savePath: DIR.replace(/\//g, '\\'),
    bookkeepingType: 0,
    balanceLevel: 0,
    businessName: 'עסק',
    rangeFrom: '2025-01-01',
    rangeTo: '2025-01-31',
    processDate: '2025-01-15',
    processTime: '10:30',
    languageCode: 0,
    charset: 1,
    compressor: 'zip',
    currency: 'ILS',
    hasBranches: 0,
  };
}

const COUNT = 3000;
const database = new Map<number, DocTypeCheck['database']>([
  [305, { count: COUNT, exVat: 90000 * COUNT, vat: 16200 * COUNT, incVat: 106200 * COUNT, withholding: 0, lines: 2 * COUNT, payments: 0, paymentsTotal: 0 }],
]);

let work: string;
beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'pinkas-verify-test-'));
});
afterAll(async () => rm(work, { recursive: true, force: true }));

/** Writes COUNT invoices into a zip, a chunk of 500 at a time, as the export does. */
async function writeInChunks(zipPath: string): Promise<{ source: SourceDigest }> {
  const out = openZip(DIR, new Date(2025, 0, 15, 10, 30), zipPath);
  const asm = new BkmvAssembler(VAT, '482915736401827');
  const source = new SourceDigest();
  await write(out, asm.open());
  for (let from = 0; from < COUNT; from += 500) {
    const docs = Array.from({ length: 500 }, (_, i) => invoice(from + i));
    for (const d of docs) source.add(d);
    await write(out, asm.documents(docs));
  }
  const z = asm.close();
  await write(out, z.bytes);
  await out.finish(iniFile(a000(z.totalRecords, asm.primaryId), asm.counts));
  return { source };
}

describe('the assembler', () => {
  it('writes a chunk of documents as the same bytes as one document at a time', () => {
    const docs = [invoice(1), invoice(2), invoice(3)];
    const one = new BkmvAssembler(VAT, '482915736401827');
    const many = new BkmvAssembler(VAT, '482915736401827');
    expect(many.documents(docs).equals(Buffer.concat(docs.map((d) => one.document(d))))).toBe(true);
    expect(many.counts).toEqual(one.counts);
  });
});

describe('a zip written a chunk at a time', () => {
  it('reads back clean, every document matching its source', async () => {
    const zipPath = path.join(work, 'chunks.zip');
    const { source } = await writeInChunks(zipPath);
    const v = await verifyZip(zipPath, DIR, source, database);
    expect(v.issues).toEqual([]);
    expect(v.ok).toBe(true);
    expect(v.documentsRead).toBe(COUNT);
    expect(v.recordCounts).toEqual({ A100: 1, C100: COUNT, D110: 2 * COUNT, Z900: 1 });
  });

  it('fails when the database counts one document more than the file holds', async () => {
    const zipPath = path.join(work, 'more.zip');
    const { source } = await writeInChunks(zipPath);
    const more = new Map([[305, { ...database.get(305)!, count: COUNT + 1 }]]);
    const v = await verifyZip(zipPath, DIR, source, more);
    expect(v.ok).toBe(false);
    expect(v.byDocType[0].match).toBe(false);
  });
});
