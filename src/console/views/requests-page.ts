import type { Mode } from '../../platform/db/engine.ts';
import type { Frame } from './auth-pages.ts';
import { modeTabs, pager, sayer } from './browse-frame.ts';
import { html, notice, page, when } from './html.ts';

/** A row of the request log as the API answers it (GET /requests). */
export interface LoggedRequest {
  requestId: string;
  method: string;
  path: string;
  status: number;
  reason: string | null;
  durationMs: number;
  keyPrefix: string;
  createdAt: string;
}

export interface RequestsView {
  user: { name: string };
  mode: Mode;
  requestId?: string;
  cursor?: string;
  requests: LoggedRequest[];
  nextCursor: string | null;
  problem?: string | null;
}

export const requestsPath = (mode: Mode) => `/console/${mode}/requests`;

export function requestsPage(f: Frame, v: RequestsView): string {
  const L = sayer(f.lang);
  const path = requestsPath(v.mode);
  const rows = v.requests.map(
    (r) => html`<tr data-request-id="${r.requestId}" class="${v.requestId ? 'hit' : ''}">
  <td class="when">${when(f.lang, r.createdAt, '')}</td>
  <td><code>${r.method}</code></td>
  <td class="wrap"><code>${r.path}</code></td>
  <td><span class="tag ${r.status >= 400 ? 'error' : 'ok'}">${r.status}</span></td>
  <td>${r.reason ? html`<code>${r.reason}</code>` : ''}</td>
  <td><a href="${path}?requestId=${encodeURIComponent(r.requestId)}"><code>${r.requestId}</code></a></td>
  <td class="num">${r.durationMs} ms</td>
  <td><code>${r.keyPrefix}…</code></td>
</tr>`,
  );
  return page(
    { ...f, title: L('nav_requests'), user: v.user, active: 'requests', wide: true },
    html`${modeTabs(L, v.mode, requestsPath)}
<p class="muted">${L('requests_intro')}</p>
${notice('error', v.problem)}
<form method="get" action="${path}" class="filters card" id="request-search">
  <div class="field"><label for="f-requestId">${L('request_id')}</label><input id="f-requestId" name="requestId" value="${v.requestId ?? ''}" dir="ltr" size="40" maxlength="64"></div>
  <button type="submit">${L('find')}</button>
  ${v.requestId ? html`<a href="${path}">${L('clear')}</a>` : ''}
</form>
<table id="requests">
  <thead><tr><th>${L('time')}</th><th>${L('method')}</th><th>${L('path')}</th><th>${L('status')}</th><th>${L('reason')}</th><th>${L('request_id')}</th><th>${L('duration')}</th><th>${L('key')}</th></tr></thead>
  <tbody>${rows.length ? rows : html`<tr><td colspan="8" class="muted">${L('no_requests')}</td></tr>`}</tbody>
</table>
${pager(L, { path, filters: { requestId: v.requestId }, cursor: v.cursor, nextCursor: v.nextCursor })}`,
  );
}
