import type { BusinessRecord } from '../../businesses/index.ts';
import type { Mode } from '../../platform/db/engine.ts';
import type { Frame } from './auth-pages.ts';
import { businessPath, modeTabs, sayer } from './browse-frame.ts';
import { html, page } from './html.ts';

/** The account's businesses in one database, each with its sections. */
export function businessesPage(f: Frame, v: { user: { name: string }; mode: Mode; businesses: BusinessRecord[] }): string {
  const L = sayer(f.lang);
  const rows = v.businesses.map(
    (b) => html`<tr data-business-id="${b.id}">
  <td><a href="${businessPath(v.mode, b.id, 'documents')}">${b.name}</a></td>
  <td><code>${b.taxId}</code></td>
  <td>${L(`dealer_${b.dealerType}`)}</td>
  <td><a href="${businessPath(v.mode, b.id, 'documents')}">${L('sub_documents')}</a> · <a href="${businessPath(v.mode, b.id, 'parties')}">${L('sub_parties')}</a> ·
      <a href="${businessPath(v.mode, b.id, 'expenses')}">${L('sub_expenses')}</a> · <a href="${businessPath(v.mode, b.id, 'exports')}">${L('sub_exports')}</a></td>
</tr>`,
  );
  return page(
    { ...f, title: L('businesses_title'), user: v.user, active: 'data' },
    html`${modeTabs(L, v.mode, (m) => `/console/${m}/businesses`)}
<p class="muted">${L('businesses_pick')}</p>
<table id="businesses">
  <thead><tr><th>${L('name')}</th><th>${L('tax_id')}</th><th>${L('dealer_type')}</th><th></th></tr></thead>
  <tbody>${rows.length ? rows : html`<tr><td colspan="4" class="muted">${L('businesses_none')}</td></tr>`}</tbody>
</table>`,
  );
}
