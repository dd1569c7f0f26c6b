/** A business's parties, expenses (with receipt thumbnails) and export runs (with downloads). */
import type { BusinessRecord } from '../../businesses/index.ts';
import type { Mode } from '../../platform/db/engine.ts';
import type { FileMeta } from '../../platform/files.ts';
import type { Frame } from './auth-pages.ts';
import { businessPath, businessTabs, modeTabs, money, pager, sayer, statusTag, type Say, type Section } from './browse-frame.ts';
import { html, notice, page, when, type Html } from './html.ts';

interface BooksFrame {
  user: { name: string };
  mode: Mode;
  business: BusinessRecord;
  cursor?: string;
  nextCursor: string | null;
  problem?: string | null;
}

export const filePath = (mode: Mode, fileId: string) => `/console/${mode}/files/${fileId}`;
const selected = (on: boolean) => (on ? html` selected` : '');

function booksPage(
  f: Frame,
  v: BooksFrame,
  section: Section,
  o: { form?: Html; head: Html; rows: Html[]; empty: string; filters?: Record<string, string | undefined> },
): string {
  const L = sayer(f.lang);
  const columns = (o.head.value.match(/<th>/g) ?? []).length;
  return page(
    { ...f, title: L(`sub_${section}`), user: v.user, active: 'data', wide: true },
    html`${modeTabs(L, v.mode, (m) => `/console/${m}/businesses`)}
${businessTabs(L, v.mode, v.business, section)}
${notice('error', v.problem)}
${o.form ?? ''}
<table id="${section}">
  <thead><tr>${o.head}</tr></thead>
  <tbody>${o.rows.length ? o.rows : html`<tr><td colspan="${columns}" class="muted">${o.empty}</td></tr>`}</tbody>
</table>
${pager(L, { path: businessPath(v.mode, v.business.id, section), filters: o.filters ?? {}, cursor: v.cursor, nextCursor: v.nextCursor })}`,
  );
}

export interface PartyRow {
  id: string;
  key: string;
  kind: string;
  name: string;
  taxId: string | null;
  phone: string | null;
  email: string | null;
  createdAt: string;
}

export function partiesPage(f: Frame, v: BooksFrame & { kind?: string; parties: PartyRow[] }): string {
  const L = sayer(f.lang);
  const path = businessPath(v.mode, v.business.id, 'parties');
  const kinds = ['customer', 'supplier', 'both'].map((k) => html`<option value="${k}"${selected(v.kind === k)}>${k}</option>`);
  const form = html`<form method="get" action="${path}" class="filters card"><div class="field"><label for="f-kind">${L('kind')}</label>
  <select id="f-kind" name="kind"><option value="">${L('any')}</option>${kinds}</select></div><button type="submit">${L('filter')}</button></form>`;
  const rows = v.parties.map(
    (p) => html`<tr data-party-id="${p.id}">
  <td><code>${p.key}</code></td><td>${p.kind}</td>
  <td><a href="${businessPath(v.mode, v.business.id, 'documents')}?partyId=${encodeURIComponent(p.id)}">${p.name}</a></td>
  <td><code>${p.taxId ?? ''}</code></td><td dir="ltr">${p.phone ?? ''}</td><td>${p.email ?? ''}</td><td>${when(f.lang, p.createdAt, '')}</td>
</tr>`,
  );
  const head = html`<th>${L('key')}</th><th>${L('kind')}</th><th>${L('name')}</th><th>${L('tax_id')}</th><th>${L('phone')}</th><th>${L('email')}</th><th>${L('created')}</th>`;
  return booksPage(f, v, 'parties', { form, head, rows, empty: L('no_parties'), filters: { kind: v.kind } });
}

export interface ExpenseRow {
  id: string;
  status: string;
  supplierName: string | null;
  supplierDocNumber: string | null;
  supplierDocDate: string | null;
  categoryKey: string | null;
  amountIncVat: number | null;
  receiptFileId: string | null;
}

export interface ExpenseFilters {
  status?: string;
  from?: string;
  to?: string;
  q?: string;
}

function expenseForm(L: Say, path: string, q: ExpenseFilters): Html {
  return html`<form method="get" action="${path}" class="filters card" id="expense-filters">
  <div class="field"><label for="f-q">${L('search')}</label><input id="f-q" name="q" value="${q.q ?? ''}" maxlength="200"></div>
  <div class="field"><label for="f-status">${L('status')}</label><select id="f-status" name="status"><option value="">${L('status_any')}</option>
    <option value="draft"${selected(q.status === 'draft')}>${L('draft')}</option><option value="recorded"${selected(q.status === 'recorded')}>${L('recorded')}</option></select></div>
  <div class="field"><label for="f-from">${L('from_date')}</label><input id="f-from" name="from" type="date" value="${q.from ?? ''}"></div>
  <div class="field"><label for="f-to">${L('to_date')}</label><input id="f-to" name="to" type="date" value="${q.to ?? ''}"></div>
  <button type="submit">${L('filter')}</button> <a href="${path}">${L('clear')}</a>
</form>`;
}

export function expensesPage(f: Frame, v: BooksFrame & { filters: ExpenseFilters; expenses: ExpenseRow[]; thumbs: Record<string, string> }): string {
  const L = sayer(f.lang);
  const receipt = (e: ExpenseRow) => {
    if (!e.receiptFileId) return '';
    const href = filePath(v.mode, e.receiptFileId);
    const thumb = v.thumbs[e.receiptFileId];
    return thumb ? html`<a href="${href}"><img class="thumb" src="${thumb}" alt="${L('receipt')}"></a>` : html`<a href="${href}">${L('receipt')}</a>`;
  };
  const rows = v.expenses.map(
    (e) => html`<tr data-expense-id="${e.id}">
  <td>${receipt(e)}</td><td>${e.supplierName ?? ''}</td><td><code>${e.supplierDocNumber ?? ''}</code></td><td>${e.supplierDocDate ?? ''}</td>
  <td>${e.categoryKey ?? ''}</td><td class="num">${money(e.amountIncVat)}</td><td>${statusTag(L, e.status)}</td>
</tr>`,
  );
  const head = html`<th>${L('receipt')}</th><th>${L('supplier')}</th><th>${L('number')}</th><th>${L('date')}</th><th>${L('category')}</th><th>${L('doc_total')}</th><th>${L('status')}</th>`;
  const form = expenseForm(L, businessPath(v.mode, v.business.id, 'expenses'), v.filters);
  return booksPage(f, v, 'expenses', { form, head, rows, empty: L('no_expenses'), filters: { ...v.filters } });
}

export interface ExportRow {
  id: string;
  kind: string;
  from: string;
  to: string;
  status: string;
  verification: { ok: boolean } | null;
  error: string | null;
  createdAt: string;
  file: FileMeta | null;
}

export function exportsPage(f: Frame, v: BooksFrame & { exportRuns: ExportRow[] }): string {
  const L = sayer(f.lang);
  const rows = v.exportRuns.map(
    (r) => html`<tr data-export-id="${r.id}">
  <td><code>${r.kind}</code></td><td>${r.from} – ${r.to}</td>
  <td><span class="tag ${r.status === 'completed' ? 'ok' : r.status === 'running' ? 'pending' : 'failed'}">${r.status}</span>${r.error ? html`<br><small class="error">${r.error}</small>` : ''}</td>
  <td>${r.verification ? html`<span class="tag ${r.verification.ok ? 'ok' : 'error'}">${r.verification.ok ? '✓' : '✗'}</span>` : '—'}</td>
  <td>${r.file ? html`<a href="${filePath(v.mode, r.file.id)}" download>${L('download')}</a> <small class="muted">${r.file.name} · ${Math.ceil(r.file.size / 1024)} KB</small>` : '—'}</td>
  <td>${when(f.lang, r.createdAt, '')}</td>
</tr>`,
  );
  const head = html`<th>${L('kind')}</th><th>${L('period')}</th><th>${L('status')}</th><th>${L('verified')}</th><th>${L('file')}</th><th>${L('created')}</th>`;
  return booksPage(f, v, 'exports', { head, rows, empty: L('no_exports') });
}
