import { ISRAEL_TIME_ZONE } from '../../platform/israel-time.ts';
import { dirOf, t, type Lang, type MessageKey } from '../i18n.ts';

/** Text in HTML: every value that reaches a page goes through here (no raw interpolation). */
export function esc(v: unknown): string {
  return String(v ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Markup already escaped (built by these helpers). */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Tagged template: interpolations are escaped unless they are Html (or arrays of it). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new Html(out);
}

function render(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return esc(v);
}

export interface PageUser {
  name: string;
}

export interface PageFrame {
  lang: Lang;
  title: string;
  /** The current path, for the language switch to come back to. */
  path: string;
  csrf: string;
  /** Present on signed-in pages: shows the navigation and the sign-out button. */
  user?: PageUser;
  active?: NavItem;
  /** Pages of wide tables (the data pages) use the whole width. */
  wide?: boolean;
}

export type NavItem = 'keys' | 'usage' | 'data' | 'webhooks' | 'requests';

/** The signed-in navigation: the data pages' entries open on the mode the account has keys in (browse-routes.ts). */
const NAV: { item: NavItem; href: string; label: MessageKey }[] = [
  { item: 'keys', href: '/console/keys', label: 'nav_keys' },
  { item: 'usage', href: '/console/usage', label: 'nav_usage' },
  { item: 'data', href: '/console/data', label: 'nav_data' },
  { item: 'webhooks', href: '/console/webhooks', label: 'nav_webhooks' },
  { item: 'requests', href: '/console/requests', label: 'nav_requests' },
];

export function page(f: PageFrame, body: Html): string {
  const L = (k: MessageKey) => t(f.lang, k);
  const other = f.lang === 'he' ? 'en' : 'he';
  const nav = f.user
    ? html`<nav class="nav">
        ${NAV.map((n) => html`<a href="${n.href}" class="${f.active === n.item ? 'current' : ''}">${L(n.label)}</a>`)}
        <span class="who">${f.user.name}</span>
        <form method="post" action="/console/sign-out" class="inline">
          ${csrfField(f.csrf)}<button type="submit" class="link">${L('sign_out')}</button>
        </form>
      </nav>`
    : html``;
  return `<!doctype html>${
    html`<html lang="${f.lang}" dir="${dirOf(f.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${f.title} · ${L('product')}</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<header class="top">
  <a class="brand" href="/console">${L('product')}</a>
  ${nav}
  <a class="lang" href="/console/lang?to=${other}&amp;back=${encodeURIComponent(f.path)}" lang="${other}">${L('switch_lang')}</a>
</header>
<main${f.wide ? html` class="wide"` : ''}>
<h1>${f.title}</h1>
${body}
</main>
</body>
</html>`.value
  }`;
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function notice(kind: 'error' | 'ok' | 'info', text: string | null | undefined): Html {
  if (!text) return html``;
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</p>`;
}

export interface InputSpec {
  name: string;
  label: string;
  type?: string;
  value?: string;
  hint?: string;
  error?: string;
  autocomplete?: string;
  /** Latin-only values (email, phone, codes) stay left to right inside a Hebrew page. */
  ltr?: boolean;
  extra?: Html;
}

export function input(s: InputSpec): Html {
  const id = `f-${s.name}`;
  return html`<div class="field${s.error ? ' has-error' : ''}">
  <label for="${id}">${s.label}</label>
  <input id="${id}" name="${s.name}" type="${s.type ?? 'text'}" value="${s.value ?? ''}"${s.autocomplete ? html` autocomplete="${s.autocomplete}"` : ''}${s.ltr ? html` dir="ltr"` : ''}${s.extra ?? ''}${s.error ? html` aria-invalid="true" aria-describedby="${id}-err"` : ''}>
  ${s.hint ? html`<small class="hint">${s.hint}</small>` : ''}
  ${s.error ? html`<small class="error" id="${id}-err">${s.error}</small>` : ''}
</div>`;
}

/** Dates as the person reads them (Israel time), in their language. */
export function when(lang: Lang, isoText: string | null, never: string): string {
  if (!isoText) return never;
  return displayFormats[lang].format(new Date(isoText));
}

const displayFormat = (locale: string) => new Intl.DateTimeFormat(locale, { timeZone: ISRAEL_TIME_ZONE, dateStyle: 'medium', timeStyle: 'short' });
const displayFormats: Record<Lang, Intl.DateTimeFormat> = { he: displayFormat('he-IL'), en: displayFormat('en-GB') };
