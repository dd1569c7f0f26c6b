import type { Mode } from '../../platform/db/engine.ts';
import type { DeliveryWithRequest, WebhookView } from '../../webhooks/index.ts';
import type { Frame } from './auth-pages.ts';
import { modeTabs, pager, sayer, statusTag, type Say } from './browse-frame.ts';
import { csrfField, html, notice, page, when, type Html } from './html.ts';

export const webhooksPath = (mode: Mode) => `/console/${mode}/webhooks`;
export const webhookPath = (mode: Mode, id: string) => `${webhooksPath(mode)}/${id}`;

/** A response body shown in a table: its first characters. */
const BODY_EXCERPT = 300;
const excerpt = (text: string | null, max = BODY_EXCERPT) => (text && text.length > max ? `${text.slice(0, max)}…` : (text ?? ''));

export function webhooksPage(f: Frame, v: { user: { name: string }; mode: Mode; webhooks: WebhookView[]; cursor?: string; nextCursor: string | null }): string {
  const L = sayer(f.lang);
  const rows = v.webhooks.map(
    (w) => html`<tr data-webhook-id="${w.id}" class="${w.active ? '' : 'inactive'}">
  <td><a href="${webhookPath(v.mode, w.id)}"><code>${w.url}</code></a></td>
  <td>${w.events.length ? w.events.map((e) => html`<span class="tag">${e}</span>`) : L('all_events')}</td>
  <td>${w.businessId ? html`<code>${w.businessId}</code>` : L('all_businesses')}</td>
  <td>${w.active ? html`<span class="tag ok">${L('active')}</span>` : html`<span class="tag failed">${L('inactive')}</span>`}${
    w.consecutiveFailures ? html` <small class="muted">${w.consecutiveFailures} ${L('failures')}</small>` : ''
  }</td>
  <td>${when(f.lang, w.createdAt, '')}</td>
</tr>`,
  );
  return page(
    { ...f, title: L('nav_webhooks'), user: v.user, active: 'webhooks', wide: true },
    html`${modeTabs(L, v.mode, webhooksPath)}
<p class="muted">${L('webhooks_intro')}</p>
<table id="webhooks">
  <thead><tr><th>${L('url')}</th><th>${L('endpoint_events')}</th><th>${L('business')}</th><th>${L('status')}</th><th>${L('created')}</th></tr></thead>
  <tbody>${rows.length ? rows : html`<tr><td colspan="5" class="muted">${L('no_webhooks')}</td></tr>`}</tbody>
</table>
${pager(L, { path: webhooksPath(v.mode), filters: {}, cursor: v.cursor, nextCursor: v.nextCursor })}`,
  );
}

export interface WebhookPageView {
  user: { name: string };
  mode: Mode;
  webhook: WebhookView;
  deliveries: DeliveryWithRequest[];
  cursor?: string;
  nextCursor: string | null;
  message?: { kind: 'ok' | 'error'; text: string };
  /** The replay form's `since` as last typed (default: a day before now). */
  since: string;
}

function attemptsTable(L: Say, lang: Frame['lang'], d: DeliveryWithRequest): Html {
  if (d.attempts.length === 0) return html`<span class="muted">—</span>`;
  return html`<table class="attempts">${d.attempts.map(
    (a) => html`<tr data-attempt="${a.n}">
  <td>#${a.n}</td><td>${when(lang, a.at, '')}</td>
  <td>${a.responseStatus !== null ? html`<span class="tag ${a.responseStatus < 300 ? 'ok' : 'error'}">${a.responseStatus}</span>` : ''}${a.error ? html` <span class="error">${a.error}</span>` : ''}</td>
  <td class="num">${a.durationMs ?? ''} ms</td>
  <td>${a.responseBody ? html`<pre class="excerpt">${excerpt(a.responseBody)}</pre>` : ''}</td>
</tr>`,
  )}</table>`;
}

function deliveryRows(f: Frame, L: Say, v: WebhookPageView): Html[] {
  return v.deliveries.map(
    (d) => html`<tr data-delivery-id="${d.id}">
  <td><code>${d.event}</code><br><small class="mono muted">${d.id}</small>${d.eventId ? html`<br><small class="mono muted">${d.eventId}</small>` : ''}</td>
  <td>${statusTag(L, d.status)}${d.nextAttemptAt && d.status === 'pending' ? html`<br><small class="muted">${L('next_attempt')}: ${when(f.lang, d.nextAttemptAt, '')}</small>` : ''}</td>
  <td>${when(f.lang, d.createdAt, '')}</td>
  <td><details><summary>${L('data')}</summary><pre class="excerpt">${d.request}</pre></details></td>
  <td>${attemptsTable(L, f.lang, d)}</td>
  <td><form method="post" action="${webhookPath(v.mode, v.webhook.id)}/deliveries/${d.id}/retry" class="inline">${csrfField(f.csrf)}<button type="submit" class="secondary">${L('resend_delivery')}</button></form></td>
</tr>`,
  );
}

function replayForms(f: Frame, L: Say, v: WebhookPageView): Html {
  const action = `${webhookPath(v.mode, v.webhook.id)}/replay`;
  return html`<div class="card" id="replay">
  <form method="post" action="${action}" class="inline">${csrfField(f.csrf)}<input type="hidden" name="failed" value="true"><button type="submit">${L('replay_failed')}</button></form>
  <form method="post" action="${action}" class="filters" id="replay-since">${csrfField(f.csrf)}
    <div class="field"><label for="f-since">${L('replay_since')}</label><input id="f-since" name="since" value="${v.since}" dir="ltr" size="26"></div>
    <button type="submit" class="secondary">${L('replay_submit')}</button>
  </form>
</div>`;
}

export function webhookPage(f: Frame, v: WebhookPageView): string {
  const L = sayer(f.lang);
  const w = v.webhook;
  const rows = deliveryRows(f, L, v);
  return page(
    { ...f, title: L('deliveries'), user: v.user, active: 'webhooks', wide: true },
    html`${modeTabs(L, v.mode, webhooksPath)}
${v.message ? notice(v.message.kind, v.message.text) : ''}
<div class="card"><dl class="facts">
  <dt>${L('url')}</dt><dd><code>${w.url}</code></dd>
  <dt>${L('endpoint_events')}</dt><dd>${w.events.length ? w.events.join(', ') : L('all_events')}</dd>
  <dt>${L('status')}</dt><dd>${w.active ? L('active') : L('inactive')}${w.consecutiveFailures ? ` · ${w.consecutiveFailures} ${L('failures')}` : ''}</dd>
  <dt>id</dt><dd><code>${w.id}</code></dd>
</dl></div>
${replayForms(f, L, v)}
<table id="deliveries">
  <thead><tr><th>${L('event_type')}</th><th>${L('status')}</th><th>${L('created')}</th><th>${L('data')}</th><th>${L('attempts')}</th><th></th></tr></thead>
  <tbody>${rows.length ? rows : html`<tr><td colspan="6" class="muted">${L('no_deliveries')}</td></tr>`}</tbody>
</table>
${pager(L, { path: webhookPath(v.mode, w.id), filters: {}, cursor: v.cursor, nextCursor: v.nextCursor })}`,
  );
}
