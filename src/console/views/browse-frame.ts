/** The furniture of the data pages: the mode tabs, the business's sections, the pager, amounts and titles. */
import type { BusinessRecord } from '../../businesses/index.ts';
import { formatMinor } from '../../documents/currency.ts';
import { docTypeRuleOf } from '../../documents/doc-types.ts';
import type { Mode } from '../../platform/db/engine.ts';
import { t, type Lang, type MessageKey } from '../i18n.ts';
import { html, type Html } from './html.ts';

export type Say = (k: MessageKey, p?: Record<string, string | number>) => string;
export const sayer =
  (lang: Lang): Say =>
  (k, p) =>
    t(lang, k, p);

/** Live | Sandbox: the same page in the other database (`pathOf` gives its path). */
export function modeTabs(L: Say, mode: Mode, pathOf: (m: Mode) => string): Html {
  const tab = (m: Mode) => html`<a href="${pathOf(m)}" class="${m === mode ? 'current' : ''}" data-mode="${m}">${L(m)}</a>`;
  return html`<nav class="tabs" aria-label="${L('usage_mode')}"><span class="label">${L('usage_mode')}</span>${tab('live')}${tab('sandbox')}</nav>`;
}

export type Section = 'documents' | 'parties' | 'expenses' | 'exports';
const SECTIONS: Section[] = ['documents', 'parties', 'expenses', 'exports'];

export const businessPath = (mode: Mode, businessId: string, section: Section) => `/console/${mode}/businesses/${businessId}/${section}`;

/** The business's name and its sections (documents, parties, expenses, exports). */
export function businessTabs(L: Say, mode: Mode, b: BusinessRecord, current: Section): Html {
  return html`<nav class="tabs" aria-label="${b.name}"><span class="label"><bdi>${b.name}</bdi> <code>${b.taxId}</code></span>${SECTIONS.map(
    (sec) => html`<a href="${businessPath(mode, b.id, sec)}" class="${sec === current ? 'current' : ''}">${L(`sub_${sec}`)}</a>`,
  )}</nav>`;
}

/** Forward paging by cursor: the next page, and back to the newest when not on it. */
export function pager(L: Say, o: { path: string; filters: Record<string, string | number | undefined>; cursor?: string; nextCursor: string | null }): Html {
  const link = (cursor?: string) => {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(o.filters)) if (v !== undefined && v !== '') p.set(k, String(v));
    if (cursor) p.set('cursor', cursor);
    const qs = p.toString();
    return qs ? `${o.path}?${qs}` : o.path;
  };
  return html`<div class="pager">
  ${o.cursor ? html`<a href="${link()}" rel="first">${L('first_page')}</a>` : ''}
  ${o.nextCursor ? html`<a href="${link(o.nextCursor)}" rel="next" class="button">${L('next_page')}</a>` : ''}
</div>`;
}

/** An amount in its currency's minor units, as the API gives it: "₪1,234.50", "USD 10.00". */
export function money(minor: number | null | undefined, currency = 'ILS'): string {
  if (minor === null || minor === undefined) return '';
  const [whole, fraction] = formatMinor(minor, currency).split('.');
  const digits = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (fraction !== undefined ? `.${fraction}` : '');
  if (currency !== 'ILS') return `${currency} ${digits}`;
  return digits.startsWith('-') ? `-₪${digits.slice(1)}` : `₪${digits}`;
}

/** The document type's printed title in the page's language. */
export function docTitle(lang: Lang, docType: number): string {
  return docTypeRuleOf(docType)?.titles[lang] ?? String(docType);
}

/** A status word as a coloured tag. */
export function statusTag(L: Say, status: string): Html {
  const known: Record<string, MessageKey> = {
    draft: 'draft',
    issued: 'issued',
    recorded: 'recorded',
    pending: 'pending',
    delivered: 'delivered',
    failed: 'failed',
  };
  return html`<span class="tag ${status}">${known[status] ? L(known[status]) : status}</span>`;
}
