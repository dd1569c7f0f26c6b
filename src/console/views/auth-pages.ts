import { t, type Lang, type MessageKey } from '../i18n.ts';
import type { FieldErrors, SignUpField } from '../forms.ts';
import { csrfField, html, input, notice, page } from './html.ts';

export interface Frame {
  lang: Lang;
  path: string;
  csrf: string;
}

export function signUpPage(
  f: Frame,
  opts: { values?: Partial<Record<SignUpField, string>>; errors?: FieldErrors<SignUpField | 'form'>; message?: string } = {},
): string {
  const L = (k: MessageKey) => t(f.lang, k);
  const v = opts.values ?? {};
  const e = (k: SignUpField) => (opts.errors?.[k] ? L(opts.errors[k]) : undefined);
  return page(
    { ...f, title: L('signup_title') },
    html`<div class="card narrow">
  <p class="muted">${L('signup_intro')}</p>
  ${notice('error', opts.message)}
  <form method="post" action="/console/sign-up" novalidate>
    ${csrfField(f.csrf)}
    ${input({ name: 'name', label: L('name'), value: v.name, hint: L('name_hint'), error: e('name'), autocomplete: 'organization' })}
    ${input({ name: 'email', label: L('email'), type: 'email', value: v.email, error: e('email'), autocomplete: 'email', ltr: true })}
    ${input({ name: 'phone', label: L('phone'), type: 'tel', value: v.phone, hint: L('phone_hint'), error: e('phone'), autocomplete: 'tel', ltr: true })}
    ${input({ name: 'password', label: L('password'), type: 'password', hint: L('password_hint'), error: e('password'), autocomplete: 'new-password', ltr: true })}
    <button type="submit">${L('signup_submit')}</button>
  </form>
  <p>${L('have_account')} <a href="/console/sign-in">${L('signin_link')}</a></p>
</div>`,
  );
}

export function signUpDonePage(f: Frame, name: string): string {
  return page(
    { ...f, title: t(f.lang, 'signup_done_title') },
    html`<div class="card narrow">
  ${notice('ok', t(f.lang, 'signup_done', { name }))}
  <p><a class="button" href="/console/sign-in">${t(f.lang, 'signin_link')}</a></p>
</div>`,
  );
}

export function signInPage(f: Frame, opts: { email?: string; message?: string; kind?: 'error' | 'info'; unavailable?: boolean } = {}): string {
  const L = (k: MessageKey) => t(f.lang, k);
  return page(
    { ...f, title: L('signin_title') },
    html`<div class="card narrow">
  ${opts.unavailable ? notice('error', L('sms_unconfigured')) : notice(opts.kind ?? 'error', opts.message)}
  <form method="post" action="/console/sign-in" novalidate>
    ${csrfField(f.csrf)}
    ${input({ name: 'email', label: L('email'), type: 'email', value: opts.email, autocomplete: 'username', ltr: true })}
    ${input({ name: 'password', label: L('password'), type: 'password', autocomplete: 'current-password', ltr: true })}
    <button type="submit"${opts.unavailable ? html` disabled` : ''}>${L('signin_submit')}</button>
  </form>
  <p>${L('no_account')} <a href="/console/sign-up">${L('signup_link')}</a></p>
</div>`,
  );
}

export function verifyPage(f: Frame, opts: { phone: string; message?: string; kind?: 'error' | 'ok' | 'info' }): string {
  const L = (k: MessageKey) => t(f.lang, k);
  return page(
    { ...f, title: L('verify_title') },
    html`<div class="card narrow">
  <p>${t(f.lang, 'verify_intro', { phone: '\u2066' + opts.phone + '\u2069' })}</p>
  ${notice(opts.kind ?? 'error', opts.message)}
  <form method="post" action="/console/verify" novalidate>
    ${csrfField(f.csrf)}
    ${input({ name: 'code', label: L('code'), value: '', autocomplete: 'one-time-code', ltr: true, extra: html` inputmode="numeric" maxlength="7" pattern="[0-9 ]*" autofocus` })}
    <button type="submit">${L('verify_submit')}</button>
  </form>
  <form method="post" action="/console/verify/resend" class="inline">
    ${csrfField(f.csrf)}<button type="submit" class="secondary">${L('resend')}</button>
  </form>
  <form method="post" action="/console/sign-out" class="inline">
    ${csrfField(f.csrf)}<button type="submit" class="link">${L('start_over')}</button>
  </form>
</div>`,
  );
}

export function errorPage(f: Frame & { signedIn?: { name: string } }, status: number, message: string): string {
  return page(
    { ...f, title: `${t(f.lang, 'error_title')} ${status}`, user: f.signedIn },
    html`<div class="card narrow">${notice('error', message)}<p><a href="/console">${t(f.lang, 'back')}</a></p></div>`,
  );
}
