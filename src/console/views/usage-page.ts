import type { BusinessRecord } from '../../businesses/index.ts';
import { t, type MessageKey } from '../i18n.ts';
import type { Frame } from './auth-pages.ts';
import { barChartSvg } from './chart.ts';
import { html, page, Html } from './html.ts';
import type { Mode } from '../../platform/db/mode.ts';

export const USAGE_METRICS = ['requests', 'documentsIssued', 'expenseRows', 'ocrScans', 'emailsSent'] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];
export type UsageDay = { date: string } & Record<UsageMetric, number>;

export interface UsageView {
  accountName: string;
  mode: Mode;
  days: number;
  usage: UsageDay[];
  businesses: { live: BusinessRecord[]; sandbox: BusinessRecord[] };
}

export const USAGE_DAY_CHOICES = [7, 30, 90];

type Label = (k: MessageKey, p?: Record<string, string | number>) => string;

function usageCharts(L: Label, v: UsageView): Html[] {
  return USAGE_METRICS.map((m) => {
    const title = L(`m_${m}` as MessageKey);
    const total = v.usage.reduce((sum, d) => sum + d[m], 0);
    return html`<div class="card chart-card" data-metric="${m}">
  <h3>${title}</h3>
  <div class="sum">${L('total')}: <strong>${total}</strong> · ${L('per_day', { days: v.days })}</div>
  ${new Html(
    barChartSvg(
      v.usage.map((d) => ({ date: d.date, value: d[m] })),
      { title },
    ),
  )}
</div>`;
  });
}

function businessesTable(L: Label, list: BusinessRecord[], mode: Mode): Html {
  return html`<h3>${L(mode)}</h3>
${
  list.length === 0
    ? html`<p class="muted">${L('businesses_none')}</p>`
    : html`<table class="businesses" data-mode="${mode}">
  <thead><tr><th>${L('name')}</th><th>${L('tax_id')}</th><th>${L('dealer_type')}</th><th>${L('approval')}</th><th>${L('created')}</th></tr></thead>
  <tbody>${list.map(
    (b) =>
      html`<tr><td>${b.name}</td><td><code>${b.taxId}</code></td><td>${L(`dealer_${b.dealerType}` as MessageKey)}</td><td>${L(`approval_${b.approvalStatus}` as MessageKey)}${b.deactivatedAt ? html` · ${L('deactivated')}` : ''}</td><td>${b.createdAt.slice(0, 10)}</td></tr>`,
  )}</tbody>
</table>`
}`;
}

export function usagePage(f: Frame, v: UsageView): string {
  const L: Label = (k, p) => t(f.lang, k, p);
  return page(
    { ...f, title: L('usage_title'), user: { name: v.accountName }, active: 'usage' },
    html`<form method="get" action="/console/usage" class="filters card">
  <div class="field"><label for="f-mode">${L('usage_mode')}</label>
    <select id="f-mode" name="mode">
      <option value="live"${v.mode === 'live' ? html` selected` : ''}>${L('live')}</option>
      <option value="sandbox"${v.mode === 'sandbox' ? html` selected` : ''}>${L('sandbox')}</option>
    </select></div>
  <div class="field"><label for="f-days">${L('days')}</label>
    <select id="f-days" name="days">${USAGE_DAY_CHOICES.map((d) => html`<option value="${d}"${d === v.days ? html` selected` : ''}>${d}</option>`)}</select></div>
  <button type="submit">${L('show')}</button>
</form>
<div class="charts">${usageCharts(L, v)}</div>
<h2>${L('businesses_title')}</h2>
${businessesTable(L, v.businesses.live, 'live')}
${businessesTable(L, v.businesses.sandbox, 'sandbox')}`,
  );
}
