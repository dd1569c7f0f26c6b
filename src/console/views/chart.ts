import { esc } from './html.ts';

export interface ChartPoint {
  date: string;
  value: number;
}

/** A round upper bound for the axis: 1, 2, 5 × 10^n at or above the maximum (at least 1). */
export function niceMax(max: number): number {
  if (max <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

/**
 * A bar per day as inline SVG (no script, no styles: the console's CSP allows it). Time runs left
 * to right in both languages, as Hebrew charts commonly do; the caller's title says what is counted.
 */
export function barChartSvg(points: ChartPoint[], opts: { title: string; width?: number; height?: number }): string {
  const width = opts.width ?? 440;
  const height = opts.height ?? 150;
  const pad = { top: 12, right: 8, bottom: 22, left: 40 };
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const top = niceMax(Math.max(0, ...points.map((p) => p.value)));
  const slot = points.length > 0 ? plotW / points.length : plotW;
  const barW = Math.max(1, slot * 0.7);
  const labelEvery = Math.max(1, Math.ceil(points.length / 6));
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="${esc(opts.title)}" direction="ltr">`,
    `<title>${esc(opts.title)}</title>`,
    `<line x1="${pad.left}" y1="${pad.top + plotH}" x2="${width - pad.right}" y2="${pad.top + plotH}" stroke="#9aa5b1" stroke-width="1"/>`,
    `<line x1="${pad.left}" y1="${pad.top}" x2="${width - pad.right}" y2="${pad.top}" stroke="#e4e7eb" stroke-width="1"/>`,
    `<text x="${pad.left - 6}" y="${pad.top + 4}" text-anchor="end" font-size="11" fill="#52606d">${top}</text>`,
    `<text x="${pad.left - 6}" y="${pad.top + plotH + 4}" text-anchor="end" font-size="11" fill="#52606d">0</text>`,
  );
  points.forEach((p, i) => {
    const h = top > 0 ? (p.value / top) * plotH : 0;
    const x = pad.left + i * slot + (slot - barW) / 2;
    const y = pad.top + plotH - h;
    parts.push(
      `<rect class="bar" x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="#3e7bfa" data-date="${esc(p.date)}" data-value="${p.value}"><title>${esc(p.date)}: ${p.value}</title></rect>`,
    );
    // Counted from the last day, so today is always labelled and labels never collide.
    if ((points.length - 1 - i) % labelEvery === 0) {
      parts.push(
        `<text x="${(pad.left + i * slot + slot / 2).toFixed(1)}" y="${height - 6}" text-anchor="middle" font-size="11" fill="#52606d">${esc(p.date.slice(5))}</text>`,
      );
    }
  });
  parts.push('</svg>');
  return parts.join('');
}
