// Picking words by the document's language: Hebrew, English, or both (Hebrew first).
import { EN } from './english.ts';
import { L } from './hebrew.ts';
import type { BaseDirection } from './bidi.ts';
import type { Language, RenderModel } from './model.ts';

export type LabelKey = keyof typeof L;

export const languageOf = (m: Pick<RenderModel, 'language'>): Language => m.language ?? 'he';

/** English pages run left to right; Hebrew and bilingual pages right to left (Hebrew is primary). */
export const baseDirection = (lang: Language): BaseDirection => (lang === 'en' ? 'ltr' : 'rtl');

/** One phrase in the page's language(s): Hebrew, English, or "Hebrew / English". */
export function both(lang: Language, he: string, en: string, joiner = ' / '): string {
  if (lang === 'he') return he;
  if (lang === 'en') return en;
  return he === en ? he : `${he}${joiner}${en}`;
}

/** A label by key in the page's language(s). */
export function label(lang: Language, key: LabelKey, joiner = ' / '): string {
  return both(lang, L[key], EN[key], joiner);
}

/** A table head: on a bilingual page the English goes under the Hebrew. */
export const head = (lang: Language, key: LabelKey): string => label(lang, key, '\n');

/** A name from a code table, falling back to the given text (free-text names print as given). */
export function named(lang: Language, names: { he: Record<string, string>; en: Record<string, string> }, code: string, fallback: string = code): string {
  const h = names.he[code];
  const e = names.en[code];
  if (h === undefined || e === undefined) return fallback;
  return both(lang, h, e);
}
