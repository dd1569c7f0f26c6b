import { describe, expect, it } from 'vitest';
import { barChartSvg, niceMax } from '../../src/console/views/chart.ts';
import { esc, html, page } from '../../src/console/views/html.ts';
import { dirOf, pickLang, t } from '../../src/console/i18n.ts';
import { csrfToken, csrfValid, codeHash, newCode, tokenHash } from '../../src/console/secrets.ts';
import { keyState } from '../../src/console/views/keys-page.ts';

describe('escaping', () => {
  it('escapes every interpolation except built markup', () => {
    expect(esc(`<script>"x"&'y'</script>`)).toBe('&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/script&gt;');
    const name = '<img src=x onerror=alert(1)>';
    expect(html`<p>${name}</p>`.value).toBe('<p>&lt;img src=x onerror=alert(1)&gt;</p>');
    expect(html`<ul>${['a', html`<li>b</li>`]}</ul>`.value).toBe('<ul>a<li>b</li></ul>');
    expect(html`${null}${undefined}${false}${0}`.value).toBe('0');
  });
  it('a page escapes its title and user name', () => {
    const out = page({ lang: 'he', title: '<b>', path: '/console/keys', csrf: 'tok"', user: { name: '"><script>' } }, html`x`);
    expect(out).toContain('<html lang="he" dir="rtl">');
    expect(out).not.toContain('<script>');
    expect(out).toContain('value="tok&quot;"');
    expect(out).toContain('href="/console/lang?to=en&amp;back=%2Fconsole%2Fkeys"');
  });
});

describe('i18n', () => {
  it('fills placeholders in both languages', () => {
    expect(t('en', 'keys_active', { active: 3, max: 10 })).toBe('3 of 10 active keys');
    expect(t('he', 'keys_active', { active: 3, max: 10 })).toBe('3 מתוך 10 מפתחות פעילים');
  });
  it('picks the cookie, then the browser preference, else English', () => {
    expect(pickLang('he', 'en-US')).toBe('he');
    expect(pickLang(undefined, 'he-IL,he;q=0.9,en;q=0.8')).toBe('he');
    expect(pickLang(undefined, 'en-US,he;q=0.5')).toBe('en');
    expect(pickLang('fr', undefined)).toBe('en');
    expect(dirOf('he')).toBe('rtl');
    expect(dirOf('en')).toBe('ltr');
  });
});

describe('chart', () => {
  it('niceMax rounds up to 1, 2, 5 × 10^n', () => {
    expect([0, 1, 2, 3, 7, 10, 11, 49, 51, 999, 1001].map(niceMax)).toEqual([1, 1, 2, 5, 10, 10, 20, 50, 100, 1000, 2000]);
  });
  it('draws one bar per day, heights proportional to the values', () => {
    const svg = barChartSvg(
      [
        { date: '2026-03-01', value: 0 },
        { date: '2026-03-02', value: 5 },
        { date: '2026-03-03', value: 10 },
      ],
      { title: 'Requests <all>', width: 340, height: 134 },
    );
    const bars = [...svg.matchAll(/<rect class="bar"[^>]*height="([\d.]+)"[^>]*data-value="(\d+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
    // plot height = 134 - 12 - 22 = 100; the axis tops at 10.
    expect(bars).toEqual([
      [0, 0],
      [50, 5],
      [100, 10],
    ]);
    expect(svg).toContain('aria-label="Requests &lt;all&gt;"');
    expect(svg).not.toContain('style=');
    expect(svg).not.toContain('<script');
  });
  it('handles an empty series', () => {
    expect(barChartSvg([], { title: 'x' })).toContain('</svg>');
  });
});

describe('secrets', () => {
  const secret = Buffer.alloc(32, 7);
  it('a CSRF token is valid only for its binding and secret', () => {
    const tok = csrfToken(secret, 'ses:ses_1');
    expect(csrfValid(secret, 'ses:ses_1', tok)).toBe(true);
    expect(csrfValid(secret, 'ses:ses_2', tok)).toBe(false);
    expect(csrfValid(Buffer.alloc(32, 8), 'ses:ses_1', tok)).toBe(false);
    expect(csrfValid(secret, 'ses:ses_1', '')).toBe(false);
    expect(csrfValid(secret, 'ses:ses_1', tok.slice(1))).toBe(false);
  });
  it('codes are 6 digits; their hash is bound to the session', () => {
    for (let i = 0; i < 200; i++) expect(newCode()).toMatch(/^\d{6}$/);
    expect(codeHash(secret, 'ses_1', '123456')).not.toBe(codeHash(secret, 'ses_2', '123456'));
    expect(tokenHash('abc')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('keyState', () => {
  const k = {
    id: 'key_1',
    accountId: 'a',
    prefix: 'bk_test_abcd',
    label: null,
    mode: 'test' as const,
    scopes: [],
    createdAt: '2026-03-01T00:00:00.000Z',
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
  };
  it('active, revoked or expired', () => {
    expect(keyState(k, 0)).toBe('active');
    expect(keyState({ ...k, revokedAt: '2026-03-02T00:00:00.000Z' }, 0)).toBe('revoked');
    expect(keyState({ ...k, expiresAt: '2026-03-02T00:00:00.000Z' }, Date.parse('2026-03-02T00:00:00.000Z'))).toBe('expired');
  });
});
