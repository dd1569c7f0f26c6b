/**
 * The printed outputs the spec requires after a run (reference §8): the §5.4 / Appendix 4 summary
 * (business, path, range, record counts per type) and the §2.6(ב) table of every Appendix 1
 * document type with its count and total (types the service does not issue show 0). Pure.
 */
import type { BkmvSummary } from '../openfrmt/index.ts';

export const DOC_TYPE_NAMES: Record<number, string> = {
  100: 'הזמנה',
  200: 'תעודת משלוח',
  205: 'תעודת משלוח סוכן',
  210: 'תעודת החזרה',
  300: 'חשבונית / חשבונית עסקה',
  305: 'חשבונית מס',
  310: 'חשבונית ריכוז',
  320: 'חשבונית מס / קבלה',
  330: 'חשבונית מס זיכוי',
  340: 'חשבונית שריון',
  345: 'חשבונית סוכן',
  400: 'קבלה',
  405: 'קבלה על תרומות',
  410: 'יציאה מקופה',
  420: 'הפקדת בנק',
  500: 'הזמנת רכש',
  600: 'תעודת משלוח רכש',
  610: 'החזרת רכש',
  700: 'חשבונית מס רכש',
  710: 'זיכוי רכש',
  800: 'יתרת פתיחה',
  810: 'כניסה כללית למלאי',
  820: 'יציאה כללית מהמלאי',
  830: 'העברה בין מחסנים',
  840: 'עדכון בעקבות ספירה',
  900: 'דוח ייצור - כניסה',
  910: 'דוח ייצור - יציאה',
};

export const RECORD_TYPE_NAMES: [string, string][] = [
  ['A100', 'רשומת פתיחה'],
  ['B100', 'תנועות בהנהלת חשבונות'],
  ['B110', 'חשבון בהנהלת חשבונות'],
  ['C100', 'כותרת מסמך'],
  ['D110', 'פרטי מסמך'],
  ['D120', 'פרטי קבלות'],
  ['M100', 'פריטים במלאי'],
  ['Z900', 'רשומת סיום'],
];

export interface RunReport {
  heading: string;
  vatId: string;
  businessName: string;
  message: string;
  path: string;
  range: { from: string; to: string };
  recordTypes: { code: string; description: string; count: number }[];
  documentTypes: { docType: number; description: string; count: number; total: number }[];
  software: { name: string; registrationNumber: string };
  producedAt: { date: string; time: string };
}

const ddmmyyyy = (isoDate: string) => `${isoDate.slice(8, 10)}${isoDate.slice(5, 7)}${isoDate.slice(0, 4)}`;

export function runReport(a: {
  vatId: string;
  businessName: string;
  directory: string;
  from: string;
  to: string;
  summary: Pick<BkmvSummary, 'recordCounts'> & { byDocType: { docType: number; count: number; incVat: number }[] };
  softwareName: string;
  registrationNumber: string;
  production: { date: string; time: string };
  ok: boolean;
}): RunReport {
  const byType = new Map(a.summary.byDocType.map((t) => [t.docType, t]));
  return {
    heading: 'הפקת קבצים במבנה אחיד עבור:',
    vatId: a.vatId,
    businessName: a.businessName,
    message: a.ok ? 'ביצוע ממשק פתוח הסתיים בהצלחה.' : 'ביצוע ממשק פתוח נכשל באימות הקבצים.',
    path: 'X:\\' + a.directory.replace(/\//g, '\\'),
    range: { from: ddmmyyyy(a.from), to: ddmmyyyy(a.to) },
    // A row appears only when such records exist (§5.4).
    recordTypes: RECORD_TYPE_NAMES.filter(([code]) => (a.summary.recordCounts[code] ?? 0) > 0).map(([code, description]) => ({
      code,
      description,
      count: a.summary.recordCounts[code],
    })),
    // Every Appendix 1 type, 0 where none (§2.6(ב)); total = Σ C100/1223 in agorot.
    documentTypes: Object.entries(DOC_TYPE_NAMES).map(([code, description]) => {
      const t = byType.get(Number(code));
      return { docType: Number(code), description, count: t?.count ?? 0, total: t?.incVat ?? 0 };
    }),
    software: { name: a.softwareName, registrationNumber: a.registrationNumber },
    producedAt: {
      date: `${a.production.date.slice(8, 10)}/${a.production.date.slice(5, 7)}/${a.production.date.slice(2, 4)}`,
      time: a.production.time,
    },
  };
}
