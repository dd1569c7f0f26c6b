import type { BusinessRecord } from '../../businesses/index.ts';
import type { DocumentView } from '../../documents/index.ts';
import type { Mode } from '../../platform/db/engine.ts';
import { quantityText } from '../../platform/money.ts';
import type { PrintLogEntry } from '../../prints/index.ts';
import type { Frame } from './auth-pages.ts';
import { businessPath, businessTabs, docTitle, modeTabs, money, sayer, statusTag, type Say } from './browse-frame.ts';
import { html, page, when, type Html } from './html.ts';

/** An event as the page lists it (the events API's fields it shows). */
export interface DocumentEvent {
  id: string;
  type: string;
  data: unknown;
  createdAt: string;
}

export interface DocumentPageView {
  user: { name: string };
  mode: Mode;
  business: BusinessRecord;
  document: DocumentView;
  prints: PrintLogEntry[];
  events: DocumentEvent[];
}

export const documentPath = (mode: Mode, businessId: string, id: string) => `${businessPath(mode, businessId, 'documents')}/${id}`;

function facts(L: Say, lang: Frame['lang'], d: DocumentView, pathOf: (id: string) => string): Html {
  return html`<dl class="facts">
  <dt>${L('status')}</dt><dd>${statusTag(L, d.status)}</dd>
  <dt>${L('document_date')}</dt><dd>${d.documentDate ?? ''}</dd>
  ${d.issuedAt ? html`<dt>${L('issued_at')}</dt><dd>${when(lang, d.issuedAt, '')}</dd>` : ''}
  <dt>${L('party')}</dt><dd>${d.party?.name ?? '—'}${d.party?.taxId ? html` <code>${d.party.taxId}</code>` : ''}</dd>
  <dt>${L('total_ex_vat')}</dt><dd class="mono">${money(d.totalExVat, d.currency)}</dd>
  <dt>${L('vat')}</dt><dd class="mono">${money(d.vatAmount, d.currency)}</dd>
  <dt>${L('total_inc_vat')}</dt><dd class="mono"><strong>${money(d.totalIncVat, d.currency)}</strong></dd>
  ${d.externalRef ? html`<dt>${L('external_ref')}</dt><dd><code>${d.externalRef}</code></dd>` : ''}
  ${d.linkedDocumentId ? html`<dt>${L('credits_document')}</dt><dd><a href="${pathOf(d.linkedDocumentId)}" id="linked-document"><code>${d.linkedDocumentId}</code></a></dd>` : ''}
  ${d.cancelledByDocumentId ? html`<dt>${L('credited_by')}</dt><dd><a href="${pathOf(d.cancelledByDocumentId)}" id="credited-by"><code>${d.cancelledByDocumentId}</code></a></dd>` : ''}
  <dt>id</dt><dd><code>${d.id}</code></dd>
</dl>`;
}

/** The allocation number's state (חשבונית ישראל): status, number, error, when asked and decided. */
function allocationCard(L: Say, lang: Frame['lang'], d: DocumentView): Html {
  const a = d.allocation;
  const body = a
    ? html`<dl class="facts" id="allocation">
  <dt>${L('status')}</dt><dd><span class="tag ${a.status}">${a.status}</span></dd>
  <dt>${L('allocation')}</dt><dd><code>${a.number ?? d.allocationNumber ?? '—'}</code></dd>
  ${a.error ? html`<dt>${L('error')}</dt><dd class="error">${a.error}</dd>` : ''}
  <dt>${L('requested')}</dt><dd>${when(lang, a.requestedAt, '—')}</dd>
  <dt>${L('decided')}</dt><dd>${when(lang, a.decidedAt, '—')}</dd>
</dl>`
    : html`<p class="muted" id="allocation">${d.allocationNumber ? html`<code>${d.allocationNumber}</code>` : L('allocation_none')}</p>`;
  return html`<div class="card"><h2>${L('allocation')}</h2>${body}</div>`;
}

function linesTable(L: Say, d: DocumentView): Html {
  return html`<table id="lines">
  <thead><tr><th>${L('description')}</th><th>${L('quantity')}</th><th>${L('unit_price')}</th><th>${L('amount')}</th></tr></thead>
  <tbody>${d.lines.map(
    (l) =>
      html`<tr><td>${l.description}</td><td class="num">${quantityText(l.quantity)}</td><td class="num">${money(l.unitPriceExVat, d.currency)}</td><td class="num">${money(l.amount, d.currency)}</td></tr>`,
  )}</tbody>
</table>`;
}

function printsTable(L: Say, lang: Frame['lang'], prints: PrintLogEntry[]): Html {
  if (prints.length === 0) return html`<p class="muted" id="prints">${L('prints_none')}</p>`;
  return html`<table id="prints">
  <thead><tr><th>${L('time')}</th><th>${L('variant')}</th><th>${L('channel')}</th><th>${L('key')}</th><th>${L('recipients')}</th></tr></thead>
  <tbody>${prints.map(
    (p) =>
      html`<tr><td>${when(lang, p.createdAt, '')}</td><td>${p.variant}</td><td>${p.channel}</td><td><code>${p.keyPrefix ?? ''}</code></td><td>${(p.recipients ?? []).join(', ')}</td></tr>`,
  )}</tbody>
</table>`;
}

function eventsTable(L: Say, lang: Frame['lang'], events: DocumentEvent[]): Html {
  if (events.length === 0) return html`<p class="muted" id="events">${L('events_none')}</p>`;
  return html`<table id="events">
  <thead><tr><th>${L('time')}</th><th>${L('event_type')}</th><th>${L('data')}</th></tr></thead>
  <tbody>${events.map(
    (e) =>
      html`<tr data-event-id="${e.id}"><td>${when(lang, e.createdAt, '')}</td><td><code>${e.type}</code><br><small class="mono muted">${e.id}</small></td><td><pre class="excerpt">${JSON.stringify(e.data, null, 1)}</pre></td></tr>`,
  )}</tbody>
</table>`;
}

function pdfCard(L: Say, v: DocumentPageView): Html {
  const d = v.document;
  const src = `${documentPath(v.mode, v.business.id, d.id)}/pdf`;
  if (d.status === 'issued' && !d.files) return html`<div class="card"><h2>${L('pdf_preview')}</h2><p class="muted">${L('pdf_pending')}</p></div>`;
  return html`<div class="card"><h2>${L('pdf_preview')}</h2>
  <p class="muted">${L(d.status === 'draft' ? 'pdf_note_draft' : 'pdf_note_copy')} <a href="${src}" target="_blank" rel="noopener" id="pdf-link">${L('pdf_open')}</a></p>
  <iframe class="pdf" src="${src}" title="${L('pdf_preview')}"></iframe>
</div>`;
}

export function documentPage(f: Frame, v: DocumentPageView): string {
  const L = sayer(f.lang);
  const d = v.document;
  const title = d.status === 'draft' ? L('draft_title', { type: docTitle(f.lang, d.docType) }) : `${docTitle(f.lang, d.docType)} ${d.docNumber}`;
  return page(
    { ...f, title, user: v.user, active: 'data', wide: true },
    html`${modeTabs(L, v.mode, (m) => `/console/${m}/businesses`)}
${businessTabs(L, v.mode, v.business, 'documents')}
<div class="grid2">
  <div>
    <div class="card">${facts(L, f.lang, d, (id) => documentPath(v.mode, v.business.id, id))}</div>
    ${d.warnings.length ? html`<div class="card"><h2>${L('warnings')}</h2><ul>${d.warnings.map((w) => html`<li><code>${w.code}</code> ${w.message}</li>`)}</ul></div>` : ''}
    ${allocationCard(L, f.lang, d)}
    <div class="card"><h2>${L('lines')}</h2>${linesTable(L, d)}</div>
    <div class="card"><h2>${L('prints_log')}</h2>${printsTable(L, f.lang, v.prints)}</div>
  </div>
  <div>${pdfCard(L, v)}</div>
</div>
<div class="card"><h2>${L('events')}</h2>${eventsTable(L, f.lang, v.events)}</div>`,
  );
}
