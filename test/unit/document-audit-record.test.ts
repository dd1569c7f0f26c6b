import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asAuditRecord, documentAuditRecord, recordedField } from '../../src/documents/audit-record.ts';
import { canonicalJson } from '../../src/platform/canonical-json.ts';

const view = {
  id: 'doc_1',
  status: 'issued',
  docType: 320,
  docNumber: 17,
  party: { name: 'כהן בע"מ', taxId: '513456789' },
  lines: [
    { description: 'ייעוץ', quantity: 1.5, unitPrice: 40000, amount: 60000 },
    { description: 'נסיעות', quantity: 1, unitPrice: 5000, amount: 5000 },
  ],
  payments: [{ method: 'card', amount: 76700 }],
  metadata: { order: 'A-17' },
  note: null,
  totalIncVat: 76700,
  warnings: [],
  ils: null,
  createdAt: '2026-11-27T08:00:00.000Z',
};
const sha = (v: unknown) => createHash('sha256').update(canonicalJson(v)).digest('hex');

describe('documentAuditRecord', () => {
  it('keeps the small fields and records party, lines, payments and metadata by the SHA-256 of their canonical JSON', () => {
    const r = documentAuditRecord(view);
    expect(r).not.toHaveProperty('lines');
    expect(r).not.toHaveProperty('party');
    expect(r).toMatchObject({ id: 'doc_1', docNumber: 17, totalIncVat: 76700, note: null, warnings: [], createdAt: view.createdAt });
    expect(r.sha256).toEqual({ party: sha(view.party), lines: sha(view.lines), payments: sha(view.payments), metadata: sha(view.metadata) });
  });

  it('digests an absent or null field as null, and is independent of key order', () => {
    const { metadata: _m, ...noMetadata } = view;
    expect((documentAuditRecord(noMetadata).sha256 as Record<string, string>).metadata).toBe(sha(null));
    const reordered = { ...view, party: { taxId: '513456789', name: 'כהן בע"מ' } };
    expect(documentAuditRecord(reordered)).toEqual(documentAuditRecord(view));
  });

  it('tells apart any change to a digested field', () => {
    const changed = { ...view, lines: [{ ...view.lines[0], amount: 60001 }, view.lines[1]] };
    const a = documentAuditRecord(view);
    const b = documentAuditRecord(changed);
    expect(recordedField(a, 'lines')).not.toBe(recordedField(b, 'lines'));
    expect(recordedField(a, 'party')).toBe(recordedField(b, 'party'));
    expect(recordedField(a, 'totalIncVat')).toBe(recordedField(b, 'totalIncVat'));
  });

  it('reads a row written before the record existed (the whole Document JSON) in the same form', () => {
    const record = documentAuditRecord(view);
    expect(asAuditRecord(view)).toEqual(record);
    expect(asAuditRecord(record)).toBe(record);
    for (const k of ['party', 'lines', 'payments', 'docNumber', 'note']) expect(recordedField(asAuditRecord(view), k)).toBe(recordedField(record, k));
  });

  it('keeps a value the database fills later (the number hole) where it stands', () => {
    const hole = '\u27e6number:abc\u27e7';
    expect(documentAuditRecord({ ...view, docNumber: hole }).docNumber).toBe(hole);
  });
});
