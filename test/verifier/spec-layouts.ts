/**
 * OPENFRMT v1.31 record layouts, transcribed by hand for the independent verifier from
 * ../shared/reference/openfrmt.md (§3.1 A000, §3.2 summary, §4.1–§4.8 A100 … M100). Nothing here is
 * imported from src/: the writer's own tables (src/openfrmt/*) must not be the verifier's source.
 *
 * Each field: [field number, from column, to column (1-based, inclusive), picture, kind, requirement].
 * Cancelled fields (שדה מבוטל!, X(0)) occupy no bytes and are left out; the layout test checks that the
 * fields tile each record contiguously from column 1 to the record length of §2.5(ה).
 *   picture: `X(n)` alphanumeric, `9(n)` numeric, `X9(n)v99…` signed amount, `9(n)v99…` unsigned amount.
 *   kind: 'alpha' | 'num' | 'date' (YYYYMMDD) | 'time' (HHMM) | 'signed' | 'unsigned'.
 *   req: 'M' = ח (mandatory), 'C' = חמ (conditionally mandatory), 'O' = ח/ר (if managed and entered).
 */

export type Kind = 'alpha' | 'num' | 'date' | 'time' | 'signed' | 'unsigned';
export type Req = 'M' | 'C' | 'O';
export type FieldSpec = [id: number, from: number, to: number, picture: string, kind: Kind, req: Req];

export interface Layout {
  code: string;
  length: number;
  fields: FieldSpec[];
}

const A000: FieldSpec[] = [
  [1000, 1, 4, 'X(4)', 'alpha', 'M'],
  [1001, 5, 9, 'X(5)', 'alpha', 'M'],
  [1002, 10, 24, '9(15)', 'num', 'M'],
  [1003, 25, 33, '9(9)', 'num', 'M'],
  [1004, 34, 48, '9(15)', 'num', 'M'],
  [1005, 49, 56, 'X(8)', 'alpha', 'M'],
  [1006, 57, 64, '9(8)', 'num', 'M'],
  [1007, 65, 84, 'X(20)', 'alpha', 'M'],
  [1008, 85, 104, 'X(20)', 'alpha', 'M'],
  [1009, 105, 113, '9(9)', 'num', 'M'],
  [1010, 114, 133, 'X(20)', 'alpha', 'M'],
  [1011, 134, 134, '9(1)', 'num', 'M'],
  [1012, 135, 184, 'X(50)', 'alpha', 'M'],
  [1013, 185, 185, '9(1)', 'num', 'M'],
  [1014, 186, 186, '9(1)', 'num', 'O'],
  [1015, 187, 195, '9(9)', 'num', 'O'],
  [1016, 196, 204, '9(9)', 'num', 'O'],
  [1017, 205, 214, 'X(10)', 'alpha', 'M'],
  [1018, 215, 264, 'X(50)', 'alpha', 'M'],
  [1019, 265, 314, 'X(50)', 'alpha', 'O'],
  [1020, 315, 324, 'X(10)', 'alpha', 'O'],
  [1021, 325, 354, 'X(30)', 'alpha', 'O'],
  [1022, 355, 362, 'X(8)', 'alpha', 'O'],
  [1023, 363, 366, '9(4)', 'num', 'C'],
  [1024, 367, 374, '9(8)', 'date', 'C'],
  [1025, 375, 382, '9(8)', 'date', 'C'],
  [1026, 383, 390, '9(8)', 'date', 'M'],
  [1027, 391, 394, '9(4)', 'time', 'M'],
  [1028, 395, 395, '9(1)', 'num', 'M'],
  [1029, 396, 396, '9(1)', 'num', 'M'],
  [1030, 397, 416, 'X(20)', 'alpha', 'M'],
  [1032, 417, 419, 'X(3)', 'alpha', 'M'],
  [1034, 420, 420, '9(1)', 'num', 'M'],
  [1035, 421, 466, 'X(46)', 'alpha', 'M'],
];

/** INI.TXT summary record (§3.2), one per record type present in BKMVDATA.TXT. */
const SUMMARY: FieldSpec[] = [
  [1050, 1, 4, 'X(4)', 'alpha', 'M'],
  [1051, 5, 19, '9(15)', 'num', 'M'],
];

const A100: FieldSpec[] = [
  [1100, 1, 4, 'X(4)', 'alpha', 'M'],
  [1101, 5, 13, '9(9)', 'num', 'M'],
  [1102, 14, 22, '9(9)', 'num', 'M'],
  [1103, 23, 37, '9(15)', 'num', 'M'],
  [1104, 38, 45, 'X(8)', 'alpha', 'M'],
  [1105, 46, 95, 'X(50)', 'alpha', 'M'],
];

const Z900: FieldSpec[] = [
  [1150, 1, 4, 'X(4)', 'alpha', 'M'],
  [1151, 5, 13, '9(9)', 'num', 'M'],
  [1152, 14, 22, '9(9)', 'num', 'M'],
  [1153, 23, 37, '9(15)', 'num', 'M'],
  [1154, 38, 45, 'X(8)', 'alpha', 'M'],
  [1155, 46, 60, '9(15)', 'num', 'M'],
  [1156, 61, 110, 'X(50)', 'alpha', 'M'],
];

const C100: FieldSpec[] = [
  [1200, 1, 4, 'X(4)', 'alpha', 'M'],
  [1201, 5, 13, '9(9)', 'num', 'M'],
  [1202, 14, 22, '9(9)', 'num', 'M'],
  [1203, 23, 25, '9(3)', 'num', 'M'],
  [1204, 26, 45, 'X(20)', 'alpha', 'M'],
  [1205, 46, 53, '9(8)', 'date', 'M'],
  [1206, 54, 57, '9(4)', 'time', 'O'],
  [1207, 58, 107, 'X(50)', 'alpha', 'C'],
  [1208, 108, 157, 'X(50)', 'alpha', 'O'],
  [1209, 158, 167, 'X(10)', 'alpha', 'O'],
  [1210, 168, 197, 'X(30)', 'alpha', 'O'],
  [1211, 198, 205, 'X(8)', 'alpha', 'O'],
  [1212, 206, 235, 'X(30)', 'alpha', 'O'],
  [1213, 236, 237, 'X(2)', 'alpha', 'O'],
  [1214, 238, 252, 'X(15)', 'alpha', 'O'],
  [1215, 253, 261, '9(9)', 'num', 'O'],
  [1216, 262, 269, '9(8)', 'date', 'O'],
  [1217, 270, 284, 'X9(12)v99', 'signed', 'O'],
  [1218, 285, 287, 'X(3)', 'alpha', 'O'],
  [1219, 288, 302, 'X9(12)v99', 'signed', 'O'],
  [1220, 303, 317, 'X9(12)v99', 'signed', 'O'],
  [1221, 318, 332, 'X9(12)v99', 'signed', 'O'],
  [1222, 333, 347, 'X9(12)v99', 'signed', 'O'],
  [1223, 348, 362, 'X9(12)v99', 'signed', 'O'],
  [1224, 363, 374, 'X9(9)v99', 'signed', 'O'],
  [1225, 375, 389, 'X(15)', 'alpha', 'C'],
  [1226, 390, 399, 'X(10)', 'alpha', 'O'],
  [1228, 400, 400, 'X(1)', 'alpha', 'O'],
  [1230, 401, 408, '9(8)', 'date', 'M'],
  [1231, 409, 415, 'X(7)', 'alpha', 'C'],
  [1233, 416, 424, 'X(9)', 'alpha', 'O'],
  [1234, 425, 431, '9(7)', 'num', 'O'],
  [1235, 432, 444, 'X(13)', 'alpha', 'M'],
];

const D110: FieldSpec[] = [
  [1250, 1, 4, 'X(4)', 'alpha', 'M'],
  [1251, 5, 13, '9(9)', 'num', 'M'],
  [1252, 14, 22, '9(9)', 'num', 'M'],
  [1253, 23, 25, '9(3)', 'num', 'M'],
  [1254, 26, 45, 'X(20)', 'alpha', 'M'],
  [1255, 46, 49, '9(4)', 'num', 'M'],
  [1256, 50, 52, '9(3)', 'num', 'O'],
  [1257, 53, 72, 'X(20)', 'alpha', 'O'],
  [1258, 73, 73, '9(1)', 'num', 'O'],
  [1259, 74, 93, 'X(20)', 'alpha', 'O'],
  [1260, 94, 123, 'X(30)', 'alpha', 'M'],
  [1261, 124, 173, 'X(50)', 'alpha', 'O'],
  [1262, 174, 203, 'X(30)', 'alpha', 'O'],
  [1263, 204, 223, 'X(20)', 'alpha', 'O'],
  [1264, 224, 240, 'X9(12)v9999', 'signed', 'M'],
  [1265, 241, 255, 'X9(12)v99', 'signed', 'O'],
  [1266, 256, 270, 'X9(12)v99', 'signed', 'O'],
  [1267, 271, 285, 'X9(12)v99', 'signed', 'O'],
  [1268, 286, 289, '9(2)v99', 'unsigned', 'M'],
  [1270, 290, 296, 'X(7)', 'alpha', 'C'],
  [1272, 297, 304, '9(8)', 'date', 'M'],
  [1273, 305, 311, '9(7)', 'num', 'O'],
  [1274, 312, 318, 'X(7)', 'alpha', 'C'],
  [1275, 319, 339, 'X(21)', 'alpha', 'M'],
];

const D120: FieldSpec[] = [
  [1300, 1, 4, 'X(4)', 'alpha', 'M'],
  [1301, 5, 13, '9(9)', 'num', 'M'],
  [1302, 14, 22, '9(9)', 'num', 'M'],
  [1303, 23, 25, '9(3)', 'num', 'M'],
  [1304, 26, 45, 'X(20)', 'alpha', 'M'],
  [1305, 46, 49, '9(4)', 'num', 'M'],
  [1306, 50, 50, '9(1)', 'num', 'M'],
  [1307, 51, 60, '9(10)', 'num', 'C'],
  [1308, 61, 70, '9(10)', 'num', 'C'],
  [1309, 71, 85, '9(15)', 'num', 'C'],
  [1310, 86, 95, '9(10)', 'num', 'C'],
  [1311, 96, 103, '9(8)', 'date', 'O'],
  [1312, 104, 118, 'X9(12)v99', 'signed', 'M'],
  [1313, 119, 119, '9(1)', 'num', 'O'],
  [1314, 120, 139, 'X(20)', 'alpha', 'O'],
  [1315, 140, 140, '9(1)', 'num', 'O'],
  [1320, 141, 147, 'X(7)', 'alpha', 'C'],
  [1322, 148, 155, '9(8)', 'date', 'M'],
  [1323, 156, 162, '9(7)', 'num', 'O'],
  [1324, 163, 222, 'X(60)', 'alpha', 'M'],
];

const B100: FieldSpec[] = [
  [1350, 1, 4, 'X(4)', 'alpha', 'M'],
  [1351, 5, 13, '9(9)', 'num', 'M'],
  [1352, 14, 22, '9(9)', 'num', 'M'],
  [1353, 23, 32, '9(10)', 'num', 'M'],
  [1354, 33, 37, '9(5)', 'num', 'M'],
  [1355, 38, 45, '9(8)', 'num', 'O'],
  [1356, 46, 60, 'X(15)', 'alpha', 'O'],
  [1357, 61, 80, 'X(20)', 'alpha', 'O'],
  [1358, 81, 83, '9(3)', 'num', 'O'],
  [1359, 84, 103, 'X(20)', 'alpha', 'O'],
  [1360, 104, 106, '9(3)', 'num', 'O'],
  [1361, 107, 156, 'X(50)', 'alpha', 'O'],
  [1362, 157, 164, '9(8)', 'date', 'M'],
  [1363, 165, 172, '9(8)', 'date', 'M'],
  [1364, 173, 187, 'X(15)', 'alpha', 'M'],
  [1365, 188, 202, 'X(15)', 'alpha', 'O'],
  [1366, 203, 203, '9(1)', 'num', 'M'],
  [1367, 204, 206, 'X(3)', 'alpha', 'O'],
  [1368, 207, 221, 'X9(12)v99', 'signed', 'M'],
  [1369, 222, 236, 'X9(12)v99', 'signed', 'O'],
  [1370, 237, 248, 'X9(9)v99', 'signed', 'O'],
  [1371, 249, 258, 'X(10)', 'alpha', 'O'],
  [1372, 259, 268, 'X(10)', 'alpha', 'O'],
  [1374, 269, 275, 'X(7)', 'alpha', 'C'],
  [1375, 276, 283, '9(8)', 'date', 'M'],
  [1376, 284, 292, 'X(9)', 'alpha', 'O'],
  [1377, 293, 317, 'X(25)', 'alpha', 'M'],
];

const B110: FieldSpec[] = [
  [1400, 1, 4, 'X(4)', 'alpha', 'M'],
  [1401, 5, 13, '9(9)', 'num', 'M'],
  [1402, 14, 22, '9(9)', 'num', 'M'],
  [1403, 23, 37, 'X(15)', 'alpha', 'M'],
  [1404, 38, 87, 'X(50)', 'alpha', 'M'],
  [1405, 88, 102, 'X(15)', 'alpha', 'M'],
  [1406, 103, 132, 'X(30)', 'alpha', 'M'],
  [1407, 133, 182, 'X(50)', 'alpha', 'O'],
  [1408, 183, 192, 'X(10)', 'alpha', 'O'],
  [1409, 193, 222, 'X(30)', 'alpha', 'O'],
  [1410, 223, 230, 'X(8)', 'alpha', 'O'],
  [1411, 231, 260, 'X(30)', 'alpha', 'O'],
  [1412, 261, 262, 'X(2)', 'alpha', 'O'],
  [1413, 263, 277, 'X(15)', 'alpha', 'O'],
  [1414, 278, 292, 'X9(12)v99', 'signed', 'M'],
  [1415, 293, 307, 'X9(12)v99', 'signed', 'M'],
  [1416, 308, 322, 'X9(12)v99', 'signed', 'M'],
  [1417, 323, 326, '9(4)', 'num', 'O'],
  [1419, 327, 335, '9(9)', 'num', 'C'],
  [1421, 336, 342, 'X(7)', 'alpha', 'C'],
  [1422, 343, 357, 'X9(12)v99', 'signed', 'O'],
  [1423, 358, 360, 'X(3)', 'alpha', 'O'],
  [1424, 361, 376, 'X(16)', 'alpha', 'M'],
];

const M100: FieldSpec[] = [
  [1450, 1, 4, 'X(4)', 'alpha', 'M'],
  [1451, 5, 13, '9(9)', 'num', 'M'],
  [1452, 14, 22, '9(9)', 'num', 'M'],
  [1453, 23, 42, 'X(20)', 'alpha', 'O'],
  [1454, 43, 62, 'X(20)', 'alpha', 'O'],
  [1455, 63, 82, 'X(20)', 'alpha', 'M'],
  [1456, 83, 132, 'X(50)', 'alpha', 'M'],
  [1457, 133, 142, 'X(10)', 'alpha', 'O'],
  [1458, 143, 172, 'X(30)', 'alpha', 'O'],
  [1459, 173, 192, 'X(20)', 'alpha', 'M'],
  [1460, 193, 204, 'X9(9)v99', 'signed', 'M'],
  [1461, 205, 216, 'X9(9)v99', 'signed', 'M'],
  [1462, 217, 228, 'X9(9)v99', 'signed', 'M'],
  [1463, 229, 238, '9(8)v99', 'unsigned', 'O'],
  [1464, 239, 248, '9(8)v99', 'unsigned', 'O'],
  [1465, 249, 298, 'X(50)', 'alpha', 'M'],
];

/** Record lengths of §2.5(ה) (CRLF not counted). */
export const INI_LAYOUTS: Record<string, Layout> = {
  A000: { code: 'A000', length: 466, fields: A000 },
  SUMMARY: { code: 'SUMMARY', length: 19, fields: SUMMARY },
};

export const BKMV_LAYOUTS: Record<string, Layout> = {
  A100: { code: 'A100', length: 95, fields: A100 },
  B100: { code: 'B100', length: 317, fields: B100 },
  B110: { code: 'B110', length: 376, fields: B110 },
  C100: { code: 'C100', length: 444, fields: C100 },
  D110: { code: 'D110', length: 339, fields: D110 },
  D120: { code: 'D120', length: 222, fields: D120 },
  M100: { code: 'M100', length: 298, fields: M100 },
  Z900: { code: 'Z900', length: 110, fields: Z900 },
};

/** §3.2 / §2.5: the record types INI.TXT summarises, in the order of the §2.5 table. */
export const SUMMARISED_TYPES = ['B100', 'B110', 'C100', 'D110', 'D120', 'M100'] as const;

/** Appendix 1 document types (§5.1). */
export const APPENDIX1_DOC_TYPES = new Set([
  100, 200, 205, 210, 300, 305, 310, 320, 330, 340, 345, 400, 405, 410, 420, 500, 600, 610, 700, 710, 800, 810, 820, 830, 840, 900, 910,
]);

/** The system constant of 1005/1104/1154. */
export const SYSTEM_CONSTANT = '&OF1.31&';

/** Field 1306 payment methods (§5.2), 1313 acquirers (§5.3, no 5), 1315 credit deal types (§5.4). */
export const PAYMENT_METHODS = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]);
export const ACQUIRERS = new Set([1, 2, 3, 4, 6]);
export const CARD_DEAL_TYPES = new Set([1, 2, 3, 4, 5]);
