import type { FastifyRequest } from 'fastify';
import { readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';
import { AppError, unconfigured, validation } from '../platform/errors.ts';
import { textProblem } from '../platform/http/input.ts';
import type { Actor } from '../platform/audit.ts';
import { putSpool, recordFile } from '../platform/files.ts';
import { discardSpool, spoolStream, SpoolTooLarge, type Spool } from '../platform/file-store/spool.ts';
import type { Services } from '../platform/http/services.ts';
import type { BusinessRecord } from '../businesses/index.ts';
import { normalizeTaxId } from '../platform/tax-id.ts';
import { checkReceiptBytes, EXTENSION, normalizeMime, parseDataUri, tooLarge, type ReceiptMime } from './receipt-bytes.ts';
import { decodeCheck } from './receipt-image.ts';
import { checkExpenseRowsAvailable, expenseCeiling, openExpenseRows, requireApproved, takeScan } from './limits.ts';
import { expenseHoldingFile } from './rows.ts';
import { EMPTY_DRAFT, type DraftFields } from './draft-input.ts';
import { insertExpense, type NewExpenseRow } from './service.ts';
import { ocrProviderFrom, providerError } from './ocr/provider.ts';
import { prefillFrom } from './ocr/extraction.ts';
import type { ExpenseView } from './schemas.ts';

export interface Receipt {
  /**
   * The bytes, on local disk: streamed there as they arrived (hashed, the size limit enforced on the way),
   * not yet in the file store. The caller discards the spool when the receipt is not stored.
   */
  spool: Spool;
  mime: ReceiptMime;
  name: string;
}

function safeName(raw: string | undefined, mime: ReceiptMime): string {
  const cleaned = (raw ?? '')
    .replace(/[\u0000-\u001f/\\]+/g, '_')
    .trim()
    .slice(0, 200);
  return cleaned || `receipt.${EXTENSION[mime]}`;
}

/**
 * Streams a multipart `file` part to a spool in `spoolDir`, the limit enforced while it streams (by the
 * multipart parser and by the spool). Answers the spool, the declared type and the file name.
 */
async function spoolPart(req: FastifyRequest, maxBytes: number, spoolDir: string): Promise<{ spool: Spool; declared: string | null; name?: string }> {
  let part;
  try {
    part = await req.file({ limits: { fileSize: maxBytes, files: 1, fields: 2, parts: 3 } });
  } catch (err) {
    throw multipartError(err, maxBytes);
  }
  if (!part) throw validation('file', 'a multipart part named "file" is required');
  if (part.fieldname !== 'file') throw validation(part.fieldname, 'unknown part; send the receipt in a part named "file"');
  // Like every text the API stores (platform/http/input.ts): refused, not silently rewritten.
  const nameProblem = part.filename ? textProblem(part.filename) : null;
  if (nameProblem) throw validation('file.filename', nameProblem);
  let spool: Spool;
  try {
    spool = await spoolStream(part.file, { dir: spoolDir, maxBytes });
  } catch (err) {
    throw err instanceof SpoolTooLarge ? tooLarge(maxBytes) : multipartError(err, maxBytes);
  }
  // The parser stops the part at the limit and ends it (truncated) rather than failing it.
  if (part.file.truncated) {
    await discardSpool(spool);
    throw tooLarge(maxBytes);
  }
  return { spool, declared: normalizeMime(part.mimetype), name: part.filename };
}

/** A JSON `{file: dataUri, name?}` body, decoded (its size is bound by the route's body limit) and spooled. */
async function spoolDataUri(req: FastifyRequest, maxBytes: number, spoolDir: string): Promise<{ spool: Spool; declared: string | null; name?: string }> {
  const body = req.body as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw validation('body', 'send multipart/form-data with a "file" part, or JSON {"file": "data:<mime>;base64,..."}');
  }
  for (const k of Object.keys(body)) if (k !== 'file' && k !== 'name') throw validation(`body.${k}`, 'unknown field');
  if (typeof body.file !== 'string' || body.file === '') throw validation('body.file', 'is required (a base64 data URI)');
  if (body.name !== undefined && typeof body.name !== 'string') throw validation('body.name', 'must be a string');
  // A quick bound before decoding: base64 carries 3 bytes per 4 characters.
  if (body.file.length > Math.ceil(maxBytes / 3) * 4 + 256) throw tooLarge(maxBytes);
  const { bytes, declaredMime } = parseDataUri(body.file, 'body.file');
  if (bytes.length > maxBytes) throw tooLarge(maxBytes);
  return { spool: await spoolStream([bytes], { dir: spoolDir }), declared: declaredMime, name: body.name as string | undefined };
}

/**
 * Reads the receipt of an upload or scan: a multipart `file` part, or JSON `{file: dataUri, name?}`, into a
 * spool in `spoolDir` (the file store's). Checks size, real type (magic numbers, must agree with the
 * declared type) and, for images, a full decode. Nothing is stored here; a refused receipt's spool is removed.
 */
export async function readReceipt(req: FastifyRequest, maxBytes: number, spoolDir: string): Promise<Receipt> {
  const field = req.isMultipart() ? 'file' : 'body.file';
  const { spool, declared, name } = req.isMultipart() ? await spoolPart(req, maxBytes, spoolDir) : await spoolDataUri(req, maxBytes, spoolDir);
  try {
    const mime = checkReceiptBytes(spool, declared, maxBytes, field);
    if (mime !== 'application/pdf') await decodeCheck(spool.path, field);
    return { spool, mime, name: safeName(name, mime) };
  } catch (err) {
    await discardSpool(spool);
    throw err;
  }
}

/** What an Idempotency-Key retry must repeat: the file and its name, however it was sent (multipart or JSON). */
export function receiptFingerprint(r: Receipt): string {
  return JSON.stringify([r.spool.sha256, r.mime, r.name]);
}

function multipartError(err: unknown, maxBytes: number): AppError {
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE' || code === 'FST_ERR_CTP_BODY_TOO_LARGE') return tooLarge(maxBytes);
  if (code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return validation('file', 'send exactly one file part');
  return validation('file', 'the multipart body is malformed');
}

/**
 * Puts the receipt into the file store, then in one transaction records it (once per business by
 * sha256); when an expense already holds that content, answers it (`deduped: true`); otherwise takes
 * the row allowances and opens the draft holding the file.
 */
async function openReceiptDraft(
  intake: {
    s: Services;
    database: Database;
    now: Date;
    actor: Actor;
    b: BusinessRecord;
    ceiling: Awaited<ReturnType<typeof expenseCeiling>>;
    receipt: Receipt;
  },
  draft: Omit<NewExpenseRow, 'receiptFileId'>,
): Promise<{ expense: ExpenseView; deduped: boolean }> {
  const { s, database, now, actor, b, ceiling, receipt } = intake;
  const object = await putSpool(s.fileStores[database.mode].current, receipt.spool);
  return database.db.transaction(async (tx) => {
    const file = await recordFile(tx, now, { businessId: b.id, object, mime: receipt.mime, name: receipt.name });
    if (file.existed) {
      const holder = await expenseHoldingFile(tx, b.id, file.id);
      if (holder) return { expense: holder, deduped: true };
    }
    await openExpenseRows(tx, b, { maxExpensesPerMonth: ceiling, at: now });
    const expense = await insertExpense(tx, { at: now, actor, business: b, row: { ...draft, receiptFileId: file.id } });
    return { expense: expense!, deduped: false };
  });
}

/**
 * Opens a draft holding the receipt. The same content uploaded again (same sha256 in the business)
 * answers the expense that already holds it, `deduped: true`, and opens nothing.
 */
export async function uploadReceipt(
  s: Services,
  database: Database,
  { actor, business: b, receipt }: { actor: Actor; business: BusinessRecord; receipt: Receipt },
): Promise<{ expense: ExpenseView; deduped: boolean }> {
  requireApproved(b, 'uploading a receipt');
  const ceiling = await expenseCeiling(s, b);
  const now = s.clock.now();
  return openReceiptDraft({ s, database, now, actor, b, ceiling, receipt }, { ...EMPTY_DRAFT, source: 'upload' });
}

/** Draft fields from the model's answer; an unreadable or invalid value is left empty. */
export function fieldsFromExtraction(raw: Record<string, unknown>): DraftFields {
  const p = prefillFrom(raw);
  const taxId = p.supplierTaxId ? normalizeTaxId(p.supplierTaxId) : null;
  return {
    ...EMPTY_DRAFT,
    supplierName: p.supplierName,
    supplierTaxId: taxId && taxId.ok ? taxId.value : null,
    supplierDocType: p.supplierDocType,
    supplierDocNumber: p.supplierDocNumber,
    supplierDocDate: p.supplierDocDate,
    allocationNumber: p.allocationNumber,
    amountExVat: p.amountExVat,
    vatAmount: p.vatAmount,
    amountIncVat: p.amountIncVat,
  };
}

/**
 * Upload + OCR. Order matters: configuration, standing, duplicate and row limits are checked
 * before the billed call; the scan is counted (and the daily scan quota taken) in its own
 * committed transaction, so it stays counted when the provider fails; the draft and its file are
 * written only after a good answer, in one transaction: a provider failure leaves nothing behind.
 */
export async function scanReceipt(
  s: Services,
  database: Database,
  { actor, business: b, receipt }: { actor: Actor & { keyId: string; accountId: string }; business: BusinessRecord; receipt: Receipt },
): Promise<{ expense: ExpenseView; deduped: boolean }> {
  const provider = ocrProviderFrom(s.config);
  if (!provider) throw unconfigured('OCR is not configured on this server (OCR_BASE_URL, OCR_API_KEY, OCR_MODEL)');
  requireApproved(b, 'scanning a receipt');
  const ceiling = await expenseCeiling(s, b);
  const now = s.clock.now();
  const known = await queryOne<{ id: string }>(database.db, sql`SELECT id FROM files WHERE business_id = ${b.id} AND sha256 = ${receipt.spool.sha256}`);
  if (known) {
    const holder = await expenseHoldingFile(database.db, b.id, known.id);
    if (holder) return { expense: holder, deduped: true };
  }
  await checkExpenseRowsAvailable(database.db, b, ceiling, now);
  await database.db.transaction((tx) => takeScan(tx, now, actor.keyId, actor.accountId));

  let raw: Record<string, unknown>;
  try {
    // The provider takes the bytes whole (at most UPLOAD_MAX_BYTES).
    raw = await provider.extract({ bytes: await readFile(receipt.spool.path), mime: receipt.mime, name: receipt.name });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw providerError('the call failed');
  }
  const fields = fieldsFromExtraction(raw);
  return openReceiptDraft(
    { s, database, now, actor, b, ceiling, receipt },
    {
      ...fields,
      source: 'scan',
      ocrExtraction: { model: provider.model, result: raw },
    },
  );
}
