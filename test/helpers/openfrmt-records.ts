/**
 * Test-space OPENFRMT records: a record of a real writer (writeC100, writeD110, writeD120, writeB100) as the text
 * tests read columns from, and an M100 (items) record, which the service never writes (it keeps no inventory,
 * src/exports/verify.ts) and the reader must still judge.
 */
import { alpha, amount12, num, record, unsignedScaled } from '../../src/openfrmt/fields.ts';
import { RecordOut } from '../../src/openfrmt/out.ts';
import { RECORD_LENGTHS, type RecordHead } from '../../src/openfrmt/records.ts';
import { scaledQuantity } from '../../src/platform/money.ts';

/** One record written by `write`, as text without its CR LF (ISO-8859-8 decoded). */
export function recordText(write: (o: RecordOut) => void): string {
  const o = new RecordOut(1024);
  write(o);
  const bytes = o.bytes();
  let out = '';
  for (let i = 0; i < bytes.length - 2; i++) {
    const b = bytes[i];
    out += String.fromCharCode(b >= 0xe0 ? b - 0xe0 + 0x05d0 : b);
  }
  return out;
}

/** What a real writer writes for `i`, where `i` also says where the record stands: its text without CR LF. */
export function written<F, R>(write: (o: RecordOut, fields: F, ref: R) => void, i: F & R): string {
  return recordText((o) => write(o, i, i));
}

export interface M100Input extends RecordHead {
  universalCode?: string | null;
  supplierCode?: string | null;
  internalCode: string;
  name: string;
  sortCode?: string | null;
  sortCodeName?: string | null;
  unit: string;
  /** Quantities with two implied decimals (`X9(9)v99`), as plain numbers. */
  openingQty: number;
  qtyIn: number;
  qtyOut: number;
  /** Agorot, unsigned `9(8)v99`. */
  costOutsideBonded?: number | null;
  costInBonded?: number | null;
}

/** M100 quantities carry two decimals (`X9(9)v99`). */
const qty2 = (q: number) => scaledQuantity(q, 2);

/** An M100 record (reference §4.8), by the field pictures of src/openfrmt/fields.ts. */
export function m100(i: M100Input): string {
  return record('M100', RECORD_LENGTHS.M100, [
    'M100',
    num(i.recordNo, 9, '1451'),
    num(i.vatId, 9, '1452'),
    alpha(i.universalCode, 20), // 1453
    alpha(i.supplierCode, 20), // 1454
    alpha(i.internalCode, 20), // 1455
    alpha(i.name, 50), // 1456
    alpha(i.sortCode, 10), // 1457
    alpha(i.sortCodeName, 30), // 1458
    alpha(i.unit, 20), // 1459
    amount12(qty2(i.openingQty), '1460'),
    amount12(qty2(i.qtyIn), '1461'),
    amount12(qty2(i.qtyOut), '1462'),
    unsignedScaled(i.costOutsideBonded ?? 0, 8, 2, '1463'),
    unsignedScaled(i.costInBonded ?? 0, 8, 2, '1464'),
    alpha('', 50), // 1465
  ]);
}
