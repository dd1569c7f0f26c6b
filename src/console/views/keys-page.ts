import type { Account, KeyRecord } from '../../accounts/index.ts';
import { DEFAULT_SCOPES, SCOPES } from '../../platform/catalog/scopes.ts';
import { t, type MessageKey } from '../i18n.ts';
import { MINT_TOKEN_FIELD } from '../forms.ts';
import type { Frame } from './auth-pages.ts';
import { csrfField, html, notice, page, when, type Html } from './html.ts';

export type KeyState = 'active' | 'revoked' | 'expired';

export function keyState(k: KeyRecord, nowMs: number): KeyState {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && Date.parse(k.expiresAt) <= nowMs) return 'expired';
  return 'active';
}

export interface KeysView {
  account: Account;
  keys: KeyRecord[];
  nowMs: number;
  minted?: { secret: string; key: KeyRecord };
  /** A repeat of a mint form: the key it already created; its secret only within the same session's window. */
  repeated?: { secret: string | null; key: KeyRecord };
  /** The one-time idempotency token of the mint form shown on this page. */
  mintToken: string;
  message?: { kind: 'error' | 'ok'; text: string };
  form?: { label: string; mode: string; scopes: string[] };
}

export function keysPage(f: Frame, v: KeysView): string {
  const L = (k: MessageKey, p?: Record<string, string | number>) => t(f.lang, k, p);
  const active = v.keys.filter((k) => keyState(k, v.nowMs) === 'active').length;
  const mintSection = mintForm(f, v, active >= v.account.maxActiveKeys);
  const minted = mintedCard(v, L);
  const rows = keyRows(f, v, L);

  return page(
    { ...f, title: L('keys_title'), user: { name: v.account.name }, active: 'keys' },
    html`${v.message ? notice(v.message.kind, v.message.text) : ''}
${minted}
<p class="muted" id="active-count">${L('keys_active', { active, max: v.account.maxActiveKeys })}</p>
${mintSection}
<table id="keys">
  <thead><tr><th>${L('prefix')}</th><th>${L('label')}</th><th>${L('mode')}</th><th>${L('scopes')}</th><th>${L('created')}</th><th>${L('last_used')}</th><th>${L('status')}</th><th></th></tr></thead>
  <tbody>${rows.length ? rows : html`<tr><td colspan="8" class="muted">${L('no_keys')}</td></tr>`}</tbody>
</table>
<p class="muted">${L('rotation')}</p>`,
  );
}

type Say = (k: MessageKey, p?: Record<string, string | number>) => string;

/** The form that mints a key, or why the account cannot mint one now. */
function mintForm(f: Frame, v: KeysView, atLimit: boolean): Html {
  const L: Say = (k, p) => t(f.lang, k, p);
  if (v.account.approvalStatus !== 'approved') {
    return notice('info', L(v.account.approvalStatus === 'pending' ? 'keys_pending' : 'keys_suspended'));
  }
  if (atLimit) return notice('error', L('keys_limit', { max: v.account.maxActiveKeys }));
  const form = v.form ?? { label: '', mode: 'test', scopes: [...DEFAULT_SCOPES] };
  const scopeBoxes = SCOPES.map((sc) => {
    const allowed = sc !== 'ocr' || v.account.ocrGranted;
    return html`<label><input type="checkbox" name="scopes" value="${sc}"${form.scopes.includes(sc) && allowed ? html` checked` : ''}${allowed ? '' : html` disabled`}> <code>${sc}</code></label>`;
  });
  return html`<div class="card">
  <h2>${L('mint_title')}</h2>
  <form method="post" action="/console/keys" id="mint">
    ${csrfField(f.csrf)}
    <input type="hidden" name="${MINT_TOKEN_FIELD}" value="${v.mintToken}">
    <div class="field">
      <label for="f-label">${L('label')}</label>
      <input id="f-label" name="label" maxlength="100" value="${form.label}">
      <small class="hint">${L('label_hint')}</small>
    </div>
    <fieldset><legend>${L('mode')}</legend>
      <label><input type="radio" name="mode" value="test"${form.mode !== 'live' ? html` checked` : ''}> ${L('mode_test')} <code>bk_test_</code></label>
      <label><input type="radio" name="mode" value="live"${form.mode === 'live' ? html` checked` : ''}> ${L('mode_live')} <code>bk_live_</code></label>
    </fieldset>
    <fieldset><legend>${L('scopes')}</legend>${scopeBoxes}
      ${v.account.ocrGranted ? '' : html`<p class="hint">${L('ocr_not_granted')}</p>`}
    </fieldset>
    <button type="submit">${L('mint_submit')}</button>
  </form>
</div>`;
}

/** The card of a key just minted (its secret shown once), or of a repeated form. */
function mintedCard(v: KeysView, L: Say): Html | string {
  const secretCard = (secret: string, note: string, repeated: boolean) => html`<div class="card" id="minted"${repeated ? html` data-repeated="true"` : ''}>
  <h2>${L('minted_title')}</h2>
  ${notice('info', note)}
  <div class="secret">
    <input id="new-key" readonly value="${secret}" dir="ltr" aria-label="${L('minted_title')}">
    <button type="button" data-copy="new-key" data-copied="${L('copied')}">${L('copy')}</button>
  </div>
  <p class="muted">${L('rotation')}</p>
</div>`;
  if (v.minted) return secretCard(v.minted.secret, L('minted_once'), false);
  if (v.repeated) {
    const k = v.repeated.key;
    const which = { prefix: k.prefix, label: k.label ? ` (${k.label})` : '' };
    return v.repeated.secret
      ? secretCard(v.repeated.secret, L('mint_repeated_shown', which), true)
      : html`<div id="repeated">${notice('ok', L('mint_repeated', which))}</div>`;
  }
  return '';
}

/** One row per key, newest first, with its revoke form while active. */
function keyRows(f: Frame, v: KeysView, L: Say): Html[] {
  return v.keys
    .slice()
    .reverse()
    .map((k) => {
      const state = keyState(k, v.nowMs);
      return html`<tr class="${state === 'active' ? '' : 'inactive'}" data-key-id="${k.id}">
  <td><code>${k.prefix}…</code></td>
  <td>${k.label ?? ''}</td>
  <td><span class="tag ${k.mode}">${k.mode === 'live' ? L('live') : L('sandbox')}</span></td>
  <td>${k.scopes.map((s) => html`<span class="tag">${s}</span>`)}</td>
  <td>${when(f.lang, k.createdAt, L('never'))}</td>
  <td>${when(f.lang, k.lastUsedAt, L('never'))}</td>
  <td><span class="tag ${state}">${L(state)}</span></td>
  <td>${
    state === 'active'
      ? html`<form method="post" action="/console/keys/${k.id}/revoke" data-confirm="${L('revoke_confirm')}">${csrfField(f.csrf)}<button type="submit" class="danger">${L('revoke')}</button></form>`
      : ''
  }</td>
</tr>`;
    });
}
