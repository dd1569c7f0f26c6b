import type { BusinessRecord } from '../../businesses/index.ts';
import { DOC_TYPE_CODES } from '../../documents/doc-types.ts';
import type { DocumentView } from '../../documents/index.ts';
import type { Mode } from '../../platform/db/engine.ts';
import type { Frame } from './auth-pages.ts';
import { businessPath, businessTabs, docTitle, modeTabs, money, pager, sayer, statusTag, type Say } from './browse-frame.ts';
import { html, notice, page, type Html } from './html.ts';

/** The list's filters as the form shows them (the API's query fields). */
export interface DocumentFilters {
  q?: string;
  status?: string;
  docType?: number;
  from?: string;
  to?: string;
  partyId?: string;
  externalRefPrefix?: string;
}

export interface DocumentsView {
  user: { name: string };
  mode: Mode;
  business: BusinessRecord;
  filters: DocumentFilters;
  cursor?: string;
  documents: DocumentView[];
  nextCursor: string | null;
  /** The API's refusal of the query, shown above the form. */
  problem?: string | null;
}

const selected = (on: boolean) => (on ? html` selected` : '');

function filterForm(L: Say, lang: Frame['lang'], path: string, f: DocumentFilters): Html {
  const types = DOC_TYPE_CODES.map((code) => html`<option value="${code}"${selected(f.docType === code)}>${code} · ${docTitle(lang, code)}</option>`);
  return html`<form method="get" action="${path}" class="filters card" id="document-filters">
  <div class="field"><label for="f-q">${L('search')}</label><input id="f-q" name="q" value="${f.q ?? ''}" placeholder="${L('search_hint')}" maxlength="200"></div>
  <div class="field"><label for="f-status">${L('status')}</label><select id="f-status" name="status">
    <option value="">${L('any')}</option>
    <option value="issued"${selected(f.status === 'issued')}>${L('issued')}</option>
    <option value="draft"${selected(f.status === 'draft')}>${L('draft')}</option>
  </select></div>
  <div class="field"><label for="f-docType">${L('doc_type')}</label><select id="f-docType" name="docType"><option value="">${L('any')}</option>${types}</select></div>
  <div class="field"><label for="f-from">${L('from_date')}</label><input id="f-from" name="from" type="date" value="${f.from ?? ''}"></div>
  <div class="field"><label for="f-to">${L('to_date')}</label><input id="f-to" name="to" type="date" value="${f.to ?? ''}"></div>
  <div class="field"><label for="f-ref">${L('external_ref')}</label><input id="f-ref" name="externalRefPrefix" value="${f.externalRefPrefix ?? ''}" dir="ltr"></div>
  ${f.partyId ? html`<input type="hidden" name="partyId" value="${f.partyId}">` : ''}
  <button type="submit">${L('filter')}</button>
  <a href="${path}">${L('clear')}</a>
</form>`;
}

function documentRows(L: Say, lang: Frame['lang'], v: DocumentsView): Html[] {
  return v.documents.map((d) => {
    const href = `${businessPath(v.mode, v.business.id, 'documents')}/${d.id}`;
    return html`<tr data-document-id="${d.id}">
  <td><a href="${href}">${docTitle(lang, d.docType)}</a></td>
  <td class="num">${d.docNumber ?? '—'}</td>
  <td>${d.documentDate ?? ''}</td>
  <td>${d.party?.name ?? ''}</td>
  <td class="num">${money(d.totalIncVat, d.currency)}</td>
  <td>${statusTag(L, d.status)}</td>
  <td><code>${d.externalRef ?? ''}</code></td>
</tr>`;
  });
}

export function documentsPage(f: Frame, v: DocumentsView): string {
  const L = sayer(f.lang);
  const path = businessPath(v.mode, v.business.id, 'documents');
  const filters = { ...v.filters } as Record<string, string | number | undefined>;
  const rows = documentRows(L, f.lang, v);
  return page(
    { ...f, title: L('sub_documents'), user: v.user, active: 'data', wide: true },
    html`${modeTabs(L, v.mode, (m) => `/console/${m}/businesses`)}
${businessTabs(L, v.mode, v.business, 'documents')}
${notice('error', v.problem)}
${filterForm(L, f.lang, path, v.filters)}
<table id="documents">
  <thead><tr><th>${L('doc_type')}</th><th>${L('number')}</th><th>${L('date')}</th><th>${L('party')}</th><th>${L('doc_total')}</th><th>${L('status')}</th><th>${L('external_ref')}</th></tr></thead>
  <tbody>${rows.length ? rows : html`<tr><td colspan="7" class="muted">${L('no_documents')}</td></tr>`}</tbody>
</table>
${pager(L, { path, filters, cursor: v.cursor, nextCursor: v.nextCursor })}`,
  );
}
