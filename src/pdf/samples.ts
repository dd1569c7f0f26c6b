// Sample documents for the visual check, the CI check (.ci/checks/pdf.sh), the benchmark and tests.
import { crc32, deflateSync } from 'node:zlib';
import type { DocType } from './hebrew.ts';
import { DOC_TYPES } from '../documents/doc-types.ts';
import type { Language, RenderCurrency, RenderModel, RenderPayment, Template } from './model.ts';

const dealer = {
  name: 'קפה השכונה בע"מ',
  taxId: '516179157',
  dealerType: 'company' as const,
  address: 'רחוב הרצל 12, תל אביב-יפו',
  phone: '03-1234567',
  email: 'office@cafe.example',
};

/** A 96×96 PNG logo (a ring in the accent colour), encoded here so the samples need no image file. */
export function sampleLogoPng(): Buffer {
  const size = 96;
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0; // filter: none
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - size / 2 + 0.5, y - size / 2 + 0.5);
      const o = y * (size * 4 + 1) + 1 + x * 4;
      const ring = d < 46 && d > 30;
      const dot = d < 18;
      raw.set(ring || dot ? [0x0b, 0x6e, 0x4f, 255] : [0, 0, 0, 0], o);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The sample's lines (fresh objects on each call: a caller may change them). */
function sampleLines(): RenderModel['lines'] {
  return [
    { description: 'קפה הפוך גדול (חלב שקדים)', quantity: 2, unitPrice: 1450, lineDiscount: 0, amount: 2900, unit: null, sku: 'CAF-01' },
    { description: 'Croissant שקדים - מאפה טרי', quantity: 3, unitPrice: 1200, lineDiscount: 300, amount: 3300, unit: "יח'", sku: null },
    {
      description: 'שירותי קייטרינג לאירוע חברה ל-40 משתתפים, כולל הגשה, כלים ופירוק בסוף האירוע',
      quantity: 1,
      unitPrice: 250000,
      lineDiscount: 0,
      amount: 250000,
      unit: 'אירוע',
      sku: null,
    },
  ];
}

/** The payments of a receipt (320: cheque, card, and the rest by transfer) or a receipt (400, 405); none otherwise. */
function samplePayments(docType: DocType, toPay: number): RenderPayment[] {
  if (docType === 320) {
    return [
      { method: 2, amount: 100000, dueDate: '2026-04-15', bankCode: '12', branchCode: '345', accountNumber: '678901', checkNumber: '1001' },
      { method: 3, amount: 100000, cardCompany: '1', cardName: 'Visa', cardTxType: '2' },
      { method: 91, amount: toPay - 200000 },
    ];
  }
  if (docType === 400 || docType === 405) {
    return [
      { method: 1, amount: 23456 },
      { method: 92, amount: 50000 },
      { method: 93, amount: 50000 },
    ];
  }
  return [];
}

function sampleBranding(template: Template): RenderModel['branding'] {
  return {
    template,
    accentColor: '#0B6E4F',
    tagline: 'קפה, מאפים וקייטרינג מאז 1999',
    website: 'www.cafe.example',
    footerText: 'תודה שבחרתם בנו! שעות פתיחה: א-ה 07:00-20:00',
    logo: sampleLogoPng(),
  };
}

/** A donation receipt is a non-profit's, to a donor by ID number, with its approval and report number. */
const donationSample: Partial<RenderModel> = {
  dealer: { ...dealer, name: 'עמותת שולחן פתוח (ע"ר)', taxId: '580123453', dealerType: 'ngo' },
  party: { name: 'ישראל ישראלי', taxId: '030419816', address: 'רחוב הגפן 3, חיפה', phone: '050-7654321', email: 'israel@example.com' },
  section46: { number: '4512345', validFrom: '2026-01-01', validTo: '2026-12-31' },
  donationReport: { number: '2026000123456', pending: false },
  note: 'תודה על תרומתך לארוחות החג',
};

export function sampleModel(docType: DocType, template: Template = 'classic', overrides: Partial<RenderModel> = {}): RenderModel {
  const withLines = DOC_TYPES[docType].totalsFrom === 'lines';
  const lines = withLines ? sampleLines() : [];
  const sum = lines.reduce((a, l) => a + l.amount, 0);
  const discountAmount = withLines ? 1000 : 0;
  const totalExVat = sum - discountAmount;
  const vatAmount = Math.round((totalExVat * 1800) / 10000);
  const totalIncVat = withLines ? totalExVat + vatAmount : 123456;
  const withholdingAmount = docType === 320 ? 5000 : 0;
  const toPay = totalIncVat - withholdingAmount;
  return {
    docType,
    docNumber: docType === 330 ? 7 : 1001,
    documentDate: '2026-03-01',
    valueDate: '2026-03-01',
    dealer,
    branding: sampleBranding(template),
    party: {
      name: 'אלפא טכנולוגיות בע"מ (Alpha Tech)',
      taxId: '512200502',
      address: 'דרך מנחם בגין 132, תל אביב',
      phone: '050-1234567',
      email: 'ap@alpha.example',
    },
    priceMode: 'net',
    vatRateBp: 1800,
    lines,
    payments: samplePayments(docType, toPay),
    totals: { discountAmount, totalExVat: withLines ? totalExVat : 0, vatAmount: withLines ? vatAmount : 0, totalIncVat, withholdingAmount },
    allocationNumber: DOC_TYPES[docType].allocation ? '202603018765' : null,
    note: docType === 330 ? 'זיכוי בגין החזרת ציוד (2 יחידות)' : 'התשלום תוך 30 יום. For questions: billing@cafe.example',
    linkedDocument: docType === 330 ? { docType: 305, docNumber: 1001 } : null,
    ...(DOC_TYPES[docType].donation ? donationSample : {}),
    ...overrides,
  };
}

const englishDealer = {
  name: 'Neighbourhood Cafe Ltd',
  taxId: '516179157',
  dealerType: 'murshe' as const,
  address: '12 Herzl St, Tel Aviv-Yafo',
  phone: '03-1234567',
  email: 'office@cafe.example',
};

/** Sample rates (shekels per unit), as a rate provider would record them. */
export const SAMPLE_RATES: Record<string, string> = { USD: '3.7210', EUR: '4.0123', JPY: '0.024531', KWD: '12.1034' };

/** Shekel equivalent of a minor-unit amount at a decimal rate: what the documents area records in `ils`. */
const toAgorot = (minor: number, minorUnits: number, rate: string) => Math.round((minor / 10 ** minorUnits) * Number(rate) * 100);

const ENGLISH_LINE_DESCRIPTIONS = [
  'Large latte (almond milk)',
  'Croissant קרואסון - fresh pastry',
  'Catering for a company event, 40 guests, serving and clean-up included',
];

/** The English texts of the sample (dealer, branding lines, party, note). */
function englishTexts(base: RenderModel, docType: DocType): Partial<RenderModel> {
  const donation = DOC_TYPES[docType].donation;
  return {
    dealer: donation ? { ...englishDealer, name: 'Open Table Association (R.A.)', taxId: '580123453', dealerType: 'ngo' } : englishDealer,
    branding: { ...base.branding, tagline: 'Coffee, pastries and catering since 1999', footerText: 'Thank you! Open Sun-Thu 07:00-20:00' },
    party: {
      name: 'Alpha Tech Ltd (אלפא טכנולוגיות בע"מ)',
      taxId: '512200502',
      address: '132 Menachem Begin Rd, Tel Aviv',
      phone: '050-1234567',
      email: 'ap@alpha.example',
    },
    note: docType === 330 ? 'Credit for returned equipment (2 units)' : 'Payment within 30 days. שאלות: billing@cafe.example',
  };
}

/** The totals in shekels at `rate`. */
function shekelTotals(t: RenderModel['totals'], minorUnits: number, rate: string): NonNullable<RenderModel['ils']> {
  return {
    discountAmount: toAgorot(t.discountAmount, minorUnits, rate),
    totalExVat: toAgorot(t.totalExVat, minorUnits, rate),
    vatAmount: toAgorot(t.vatAmount, minorUnits, rate),
    totalIncVat: toAgorot(t.totalIncVat, minorUnits, rate),
    withholdingAmount: toAgorot(t.withholdingAmount, minorUnits, rate),
  };
}

/**
 * A sample in a language and a currency: English texts (with Hebrew names inside, to exercise mixed
 * runs) for `en`, the Hebrew sample for `he` and `he+en`; a foreign currency gets a Bank of Israel
 * rate and shekel totals, as the documents area would have recorded them at issue.
 */
export function sampleLanguageModel(
  docType: DocType,
  language: Language,
  currency: RenderCurrency = { code: 'ILS', minorUnits: 2 },
  overrides: Partial<RenderModel> = {},
): RenderModel {
  const base = sampleModel(docType, 'classic');
  const english = language === 'en';
  const lines = english ? base.lines.map((l, i) => ({ ...l, description: ENGLISH_LINE_DESCRIPTIONS[i], unit: i === 2 ? 'event' : null })) : base.lines;
  const foreign = currency.code !== 'ILS';
  const rate = SAMPLE_RATES[currency.code] ?? '1';
  const ils = foreign ? shekelTotals(base.totals, currency.minorUnits, rate) : null;
  const payments: RenderPayment[] = base.payments.map((p, i) =>
    foreign && i === 0 && currency.code !== 'EUR'
      ? {
          ...p,
          currency: { code: 'EUR', minorUnits: 2 },
          exchangeRate: SAMPLE_RATES.EUR,
          originalAmount: Math.round((((p.amount / 10 ** currency.minorUnits) * Number(rate)) / Number(SAMPLE_RATES.EUR)) * 100),
        }
      : p,
  );
  return {
    ...base,
    ...(english ? englishTexts(base, docType) : {}),
    lines,
    payments,
    language,
    currency,
    exchangeRate: foreign ? rate : null,
    exchangeRateDate: foreign ? '2026-02-27' : null,
    exchangeRateSource: foreign ? 'boi' : null,
    ils,
    ...overrides,
  };
}
